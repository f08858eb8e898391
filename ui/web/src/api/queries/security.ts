// Security posture: the grade and its inputs, the score's trend, the findings (filtered, paged
// on the agent), one workload's findings, on-demand scans and the export links.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../client';
import { exportUrl, findingsApiQuery, type ExportFormat, type FindingsFilters, type Kind } from '../../security/view';

export type Posture = Answer<'get_security_posture'>;
export type Findings = Answer<'get_security_findings'>;
export type FindingRow = NonNullable<Findings['rows']>[number];
export type ImageGroup = NonNullable<Findings['groups']>[number];

const securityKey = ['security'] as const;

// The posture is recomputed from the informer cache; a minute's staleness is nothing next to
// how often workloads change.
export const posture = (namespace?: string) =>
  queryOptions({
    queryKey: [...securityKey, 'posture', namespace ?? null],
    queryFn: () => unwrap(api.GET('/security/posture', { params: { query: namespace ? { namespace } : {} } })),
    staleTime: 30_000,
    refetchInterval: 60_000,
  });

export const findings = (filters: FindingsFilters) =>
  queryOptions({
    queryKey: [...securityKey, 'findings', filters],
    // The agent checks every value again (a wrong one is a 400 naming the field).
    queryFn: () => unwrap(api.GET('/security/findings', { params: { query: findingsApiQuery(filters) } })),
    staleTime: 30_000,
    // A new page keeps the old one on screen until it arrives, instead of flashing "Loading".
    placeholderData: (previous) => previous,
  });

/** One workload's own findings (exact name and kind), unpaged: a workload's findings are bounded by its containers and images. */
export const workloadFindings = (namespace: string, kind: string, name: string) =>
  queryOptions({
    queryKey: [...securityKey, 'findings', 'workload', namespace, kind, name],
    queryFn: () => unwrap(api.GET('/security/findings', { params: { query: { namespace, workload: name, workload_kind: kind } } })),
    staleTime: 30_000,
  });

export const findingsExportUrl = (filters: FindingsFilters, format: ExportFormat, kind?: Kind): string => exportUrl(filters, format, kind);

export type Trend = Answer<'get_security_posture_trend'>;
export type ScanStarted = Answer<'post_security_scan'>;
export type ScanState = Answer<'get_security_scan_by_id'>;

export const TREND_DAYS = 30;

export const trend = (namespace?: string) =>
  queryOptions({
    queryKey: [...securityKey, 'trend', namespace ?? null, TREND_DAYS],
    queryFn: () => unwrap(api.GET('/security/posture/trend', { params: { query: { ...(namespace ? { namespace } : {}), days: String(TREND_DAYS) } } })),
    staleTime: 60_000,
  });

export const scanStatus = (id: string) =>
  queryOptions({
    queryKey: [...securityKey, 'scan', id],
    queryFn: () => unwrap(api.GET('/security/scan/{id}', { params: { path: { id } } })),
    // Polled while it runs; a finished scan's state does not change.
    refetchInterval: (query) => (query.state.data === undefined || query.state.data.status === 'running' ? 3000 : false),
  });

export const startScan = () => mutationOptions({ mutationFn: () => unwrap(api.POST('/security/scan')) });

/** A finished scan changes the posture, the findings and the trend. */
export const scanFinished = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: securityKey, predicate: (q) => q.queryKey[1] !== 'scan' });
