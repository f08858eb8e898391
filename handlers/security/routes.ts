// Security posture (spec §4 "Security"): reading reports is Free (spec §1 "Tiers"), for any
// signed-in user and for keys with scanning:read.
// Scans (spec §3 "Scan", §4 "Security"). Starting one is a write an admin makes (spec §1: the
// scanning value "lets an admin trigger a scan"; §2: scanning:write "trigger scans"), audited;
// reading runs and the trend is Free for any signed-in user and keys with scanning:read. A
// self-scan's Pro license is checked by the handler, not the route: only the `self` mode
// needs it, so the route declares no licensed feature.
import { exportFindings } from './export.ts';
import { findings, posture } from './security.ts';
import { FindingsAnswer, FindingsInput, PostureAnswer, PostureInput } from '../../schema/security.ts';
import { EXPORT_MAX_ROWS, EXPORT_MEDIA_TYPES, FindingsExport, FindingsExportInput } from '../../schema/security-export.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';
import { getScan, getScanningSettings, postureTrend, setScanningSettings, startScan } from './scan.ts';
import { NoInput } from '../../schema/common.ts';
import { ScanAnswer, ScanIdInput, ScanningSettingsView, ScanStarted, StartScanInput, TrendAnswer, TrendInput } from '../../schema/security-scan.ts';
import { ScanningSettings } from '../../schema/settings.ts';

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
  defineRoute({
    method: 'POST',
    path: '/security/scan',
    summary:
      'Start a scan (admin): answers at once {id, status: running, job_name, source, started_at, started}; the run is collected in the background (GET /security/scan/{id}). One at a time: while one runs, this answers that one (started: false). 403 when security.scanning.enabled=false; in self mode 402 without the Pro self_scan feature, 403 without expert mode (the expert pod installed and the runtime switch on) or when the chart mode operator hard-disables it; a self-scan runs trivy in a Job through the expert pod',
    input: StartScanInput,
    output: ScanStarted,
    access: { auth: 'credential', role: 'admin', scope: 'scanning:write' },
    audit: 'write',
    rateLimit: 'write',
    feature: null,
    handler: startScan,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/security/scan/:id',
    summary: "A scan's status (running, succeeded, failed), job name, source, times, error and, once succeeded, its summary {score, grade, by_severity, checks, vulns, misconfigs, workloads_covered} re-added from the namespaces the caller may see; a running scan is collected first. 404 for an unknown id or one past the scan history retention",
    input: ScanIdInput,
    output: ScanAnswer,
    handler: getScan,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/security/posture/trend',
    summary: 'The posture score over stored scans: one point {ts, score, grade, scan_id} per succeeded scan in the last `days` (1-90, default 30), oldest first, at most the newest 500; each re-added from the visible namespaces (namespace: that one only)',
    input: TrendInput,
    namespaceParam: 'namespace',
    output: TrendAnswer,
    handler: postureTrend,
  }),
  defineRoute({
    ...noApiKeys('admin'),
    method: 'GET',
    path: '/admin/settings/scanning',
    summary: 'The scanner_source override, the chart scanning values, and the mode, source and self-scan verdict they resolve to now',
    input: NoInput,
    output: ScanningSettingsView,
    audit: 'http',
    rateLimit: 'read',
    handler: getScanningSettings,
  }),
  defineRoute({
    ...noApiKeys('admin'),
    method: 'PUT',
    path: '/admin/settings/scanning',
    summary: "Store scanner_source (auto, operator, self; null: the chart's security.scanning.mode); the chart's operator mode still refuses self-scan",
    input: ScanningSettings,
    output: ScanningSettingsView,
    audit: 'write',
    rateLimit: 'write',
    handler: setScanningSettings,
  }),
];
