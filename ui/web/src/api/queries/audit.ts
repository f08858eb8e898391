// Admin: the audit timeline (filtered, paged by cursor), one event with its siblings, the
// hash chain's verification and the export links. The log is append-only: nothing here writes.
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';
import type { operations } from '../schema';

export type AuditEvent = Answer<'get_admin_audit_events'>['events'][number];

/** The timeline's filters, as the URL and the API both spell them. */
export const AUDIT_FILTERS = ['category', 'severity', 'actor', 'namespace', 'action', 'outcome', 'from', 'to', 'q'] as const;
/** The filters as the URL carries them, strings the agent checks (a wrong value is a 400 naming it). */
export type AuditFilters = Partial<Record<(typeof AUDIT_FILTERS)[number], string>>;
type AuditQuery = NonNullable<operations['get_admin_audit_events']['parameters']['query']>;

const auditKey = ['admin', 'audit'] as const;

export const auditChain = () => queryOptions({ queryKey: [...auditKey, 'chain'], queryFn: () => unwrap(api.GET('/audit/verify-chain')) });

export const auditEvents = (filters: AuditFilters) =>
  infiniteQueryOptions({
    queryKey: [...auditKey, 'events', filters],
    queryFn: ({ pageParam }) => unwrap(api.GET('/admin/audit/events', { params: { query: { ...(filters as AuditQuery), ...(pageParam !== null ? { cursor: pageParam } : {}) } } })),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
  });

export const auditEvent = (id: string) => queryOptions({ queryKey: [...auditKey, 'event', id], queryFn: () => unwrap(api.GET('/admin/audit/events/{id}', { params: { path: { id } } })) });

/** A download link for the filtered timeline (the browser fetches it with the session cookie). */
export const auditExportUrl = (filters: AuditFilters, format: 'csv' | 'json'): string => `/api/agent/admin/audit/export?${new URLSearchParams({ ...(filters as Record<string, string>), format }).toString()}`;
