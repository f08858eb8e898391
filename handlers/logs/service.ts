/** Container logs, read from the API server when asked (a log is not something an informer holds). */
export interface PodLogs {
  tail(namespace: string, pod: string, container: string, options: { previous: boolean; lines: number; limitBytes?: number }): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
}
