// Scans (spec §3 "Scan", §4 "Security"). Starting one is a write an admin makes (spec §1: the
// scanning value "lets an admin trigger a scan"; §2: scanning:write "trigger scans"), audited;
// reading runs and the trend is Free for any signed-in user and keys with scanning:read. A
// self-scan's Pro license is checked by the handler, not the route: only the `self` mode
// needs it, so the route declares no licensed feature.
import { getScan, getScanningSettings, postureTrend, setScanningSettings, startScan } from '../../handlers/security/scan.ts';
import { NoInput } from '../../schema/common.ts';
import { ScanAnswer, ScanIdInput, ScanningSettingsView, ScanStarted, StartScanInput, TrendAnswer, TrendInput } from '../../schema/security-scan.ts';
import { ScanningSettings } from '../../schema/settings.ts';
import { defineRoute, type Route } from '../http/route.ts';
import { noApiKeys } from './access.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'scanning:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;

export const securityScanRoutes: readonly Route[] = [
  defineRoute({
    method: 'POST',
    path: '/security/scan',
    summary:
      'Start a scan (admin): answers at once {id, status: running, job_name, source, started_at, started}; the run is collected in the background (GET /security/scan/{id}). One at a time: while one runs, this answers that one (started: false). 403 when security.scanning.enabled=false; in self mode 402 without the Pro self_scan feature, 403 without expert mode (not provided yet) or when the chart mode operator hard-disables it',
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
