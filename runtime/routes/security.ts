// Security posture (spec §4 "Security"): reading reports is Free (spec §1 "Tiers"), for any
// signed-in user and for keys with scanning:read.
import { exportFindings } from '../../handlers/security/export.ts';
import { findings, posture } from '../../handlers/security/security.ts';
import { FindingsAnswer, FindingsInput, PostureAnswer, PostureInput } from '../../schema/security.ts';
import { EXPORT_MAX_ROWS, EXPORT_MEDIA_TYPES, FindingsExport, FindingsExportInput } from '../../schema/security-export.ts';
import { defineRoute, type Route } from '../http/route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'scanning:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const securityRoutes: readonly Route[] = [
  defineRoute({
    ...read,
    method: 'GET',
    path: '/security/posture',
    summary: 'Grade, score (Polaris formula), failed checks per severity, workloads covered, top failing checks and per-namespace postures, from the built-in checks over every workload template and bare pod; computed once for the cluster and cut to the visible namespaces (namespace: that one at the top level)',
    input: PostureInput,
    namespaceParam: 'namespace',
    output: PostureAnswer,
    handler: posture,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/security/findings',
    summary: '{vulns, misconfigs} the caller may see (vulns from trivy-operator reports when read); filters namespace, workload and workload_kind (exact), severity, kind, fixable (vulns only), search; sort severity (default), cvss, fixable, namespace, workload; group_by=image adds per-image vuln counts; with page (page_size 1-500, default 50) also rows, page, page_size, total, has_more, sort, an out-of-range page clamping to the last',
    input: FindingsInput,
    namespaceParam: 'namespace',
    output: FindingsAnswer,
    handler: findings,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/security/findings/export',
    summary: `The findings as a file (Content-Disposition: attachment; filename="capstan-findings-<date>.<ext>"): the findings filters and sort; format json (default: the {vulns, misconfigs} payload), csv (one kind: kind, vuln unless given; RFC 4180, formula cells quoted), md or html (every value escaped); at most ${EXPORT_MAX_ROWS} findings, headers X-Generated-At, X-Total-Matched, X-Truncated`,
    input: FindingsExportInput,
    namespaceParam: 'namespace',
    output: FindingsExport,
    files: [EXPORT_MEDIA_TYPES.csv, EXPORT_MEDIA_TYPES.md, EXPORT_MEDIA_TYPES.html],
    handler: exportFindings,
  }),
];
