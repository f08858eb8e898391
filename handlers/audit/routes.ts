// The audit feed (admin, never an API key): chain verification, timeline, one event with
// its siblings, export and purge.
import { auditEvent, auditExport, auditPurge, auditTimeline } from './timeline.ts';
import { verifyAuditChain } from './verify-chain.ts';
import { AuditEventInput, AuditEventWithSiblings, AuditExport, AuditExportInput, AuditPage, AuditTimelineInput, ChainReport, PurgeInput, PurgeResult } from '../../schema/audit.ts';
import { NoInput } from '../../schema/common.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

const admin = noApiKeys('admin');

export const auditRoutes: readonly Route[] = [
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/audit/verify-chain',
    summary: 'Recompute the audit hash chain oldest-first: intact, or the first bad row and whether it was edited or its predecessor deleted',
    input: NoInput,
    output: ChainReport,
    audit: 'http',
    rateLimit: 'read',
    handler: verifyAuditChain,
  }),
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/admin/audit/events',
    summary: 'Audit timeline, newest first: filters category, severity (repeatable), actor, namespace, action prefix, outcome, from/to, q; keyset pagination by cursor',
    input: AuditTimelineInput,
    output: AuditPage,
    audit: 'http',
    rateLimit: 'read',
    handler: auditTimeline,
  }),
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/admin/audit/events/:id',
    summary: 'One audit event and the same actor’s events within five minutes of it',
    input: AuditEventInput,
    output: AuditEventWithSiblings,
    audit: 'http',
    rateLimit: 'read',
    handler: auditEvent,
  }),
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/admin/audit/export',
    summary: 'Export matching events as JSON (envelope with filters) or CSV (format=csv); headers X-Generated-At, X-Total-Matched, X-Truncated; category=access exports the access log',
    input: AuditExportInput,
    output: AuditExport,
    files: ['text/csv'],
    audit: 'http',
    rateLimit: 'read',
    handler: auditExport,
  }),
  defineRoute({
    ...admin,
    method: 'POST',
    path: '/admin/audit/purge',
    summary: 'Delete audit rows older than N days, or all but the newest N; recorded before and after',
    input: PurgeInput,
    output: PurgeResult,
    audit: 'auth',
    rateLimit: 'write',
    handler: auditPurge,
  }),
];
