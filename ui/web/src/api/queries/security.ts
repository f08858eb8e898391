// Security posture: the grade and its inputs, the score's trend, the findings (filtered, paged
// on the agent), one workload's findings, on-demand scans and the export links.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Answer, type ErrorBody } from '../client';
import { exportUrl, findingsApiQuery, type ExportFormat, type FindingsFilters, type Kind, type TrendPoint } from '../../security/view';

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

/**
 * Everything in the namespace that mentions the workload's name, unpaged (one namespace's
 * findings are bounded by its workloads); findingsOfWorkload() keeps the workload's own.
 */
export const namespaceFindingsNaming = (namespace: string, name: string) =>
  queryOptions({
    queryKey: [...securityKey, 'findings', 'naming', namespace, name],
    queryFn: () => unwrap(api.GET('/security/findings', { params: { query: { namespace, search: name } } })),
    staleTime: 30_000,
  });

export const findingsExportUrl = (filters: FindingsFilters, format: ExportFormat, kind?: Kind): string => exportUrl(filters, format, kind);

// The trend and scan routes are newer than the generated client (schema.d.ts): until it is
// regenerated (`npm run generate:ui-client`) they are called through this small typed fetch,
// with the same error handling as unwrap(). Switching is replacing these calls with api.GET/POST.
async function agentJson<T>(method: 'GET' | 'POST', path: string, query: Record<string, string> = {}): Promise<T> {
  const qs = new URLSearchParams(query).toString();
  const response = await fetch(`/api/agent${path}${qs ? `?${qs}` : ''}`, {
    method,
    credentials: 'same-origin',
    headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
    body: method === 'POST' ? '{}' : undefined,
  });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok || body === undefined) {
    const error = (body ?? {}) as Partial<ErrorBody>;
    throw new ApiError(response.status, { ...error, error: error.error ?? `http_${response.status}`, message: error.message ?? response.statusText });
  }
  return body as T;
}

/** schema/security-scan.ts TrendAnswer. */
export interface Trend {
  points: (TrendPoint & { ts: string; scan_id: string })[];
}

export const TREND_DAYS = 30;

export const trend = (namespace?: string) =>
  queryOptions({
    queryKey: [...securityKey, 'trend', namespace ?? null, TREND_DAYS],
    queryFn: () => agentJson<Trend>('GET', '/security/posture/trend', { ...(namespace ? { namespace } : {}), days: String(TREND_DAYS) }),
    staleTime: 60_000,
  });

/** schema/security-scan.ts ScanStarted: `started` is false when this is the run already going. */
export interface ScanStarted {
  id: string;
  status: 'running';
  job_name: string;
  started: boolean;
}

/** schema/security-scan.ts ScanAnswer, the parts the screen shows. */
export interface ScanState {
  id: string;
  status: 'running' | 'succeeded' | 'failed';
  job_name: string;
  error: string | null;
  summary: { score: number; grade: string; vulns: number; misconfigs: number } | null;
}

export const scanStatus = (id: string) =>
  queryOptions({
    queryKey: [...securityKey, 'scan', id],
    queryFn: () => agentJson<ScanState>('GET', `/security/scan/${encodeURIComponent(id)}`),
    // Polled while it runs; a finished scan's state does not change.
    refetchInterval: (query) => (query.state.data === undefined || query.state.data.status === 'running' ? 3000 : false),
  });

export const startScan = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: () => agentJson<ScanStarted>('POST', '/security/scan'),
    onSuccess: (started) => queryClient.setQueryData(scanStatus(started.id).queryKey, { id: started.id, status: started.status, job_name: started.job_name, error: null, summary: null }),
  });

/** A finished scan changes the posture, the findings and the trend. */
export const scanFinished = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: securityKey, predicate: (q) => q.queryKey[1] !== 'scan' });
