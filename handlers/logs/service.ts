// Container logs, read from the API server when asked: a log is not something an informer holds.
export type LogRead = { ok: true; text: string } | { ok: false; reason: string };

export interface TailOptions {
  /** The instance before the last restart. */
  previous: boolean;
  lines: number;
  /** At most this many bytes of the selected lines, from their oldest (the API server's `limitBytes`). */
  limitBytes?: number;
  sinceSeconds?: number;
}

/** What a follow yields: raw lines as the container wrote them (the handler redacts), then its end. */
export type FollowChunk = { type: 'line'; line: string } | { type: 'end'; reason: 'ended' | 'byte_cap' | 'max_duration' | 'error'; message: string | null };

export interface FollowOptions {
  /** Lines sent before the new ones. */
  tailLines: number;
  sinceSeconds?: number;
}

export interface PodLogs {
  tail(namespace: string, pod: string, container: string, options: TailOptions): Promise<LogRead>;
  /**
   * The lines as they are written, from the tail on, until the client goes away (`signal`), the
   * byte cap, the time cap or the log ends; the connection opens when iteration starts. How
   * many may be open is the route's declaration (StreamCaps), held by the runtime.
   */
  follow(namespace: string, pod: string, container: string, options: FollowOptions, signal: AbortSignal): AsyncIterable<FollowChunk>;
}
