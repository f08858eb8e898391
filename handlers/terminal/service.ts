import type { Result } from '../result.ts';

/** What the socket handler hears from a session. */
export interface TerminalEvents {
  output(data: string): void;
  exit(code: number | null, reason: string): void;
}

/** One open session, as the socket handler drives it. */
export interface TerminalHandle {
  readonly id: string;
  readonly reattached: boolean;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Hold the shell's output (the browser is behind); resume() lets it flow again. */
  pause(): void;
  resume(): void;
  /** The browser went away: the shell waits the grace period to be re-attached, its output kept. */
  detach(): void;
  /** The person closed it: the shell ends now. */
  end(): void;
}

export interface TerminalOpenRequest {
  user: { id: number; username: string; role: string };
  clientIp: string;
  namespace: string;
  cols: number;
  rows: number;
  /** A session of this user's to re-attach, or null for a new one. */
  reattach: string | null;
}

export interface StoredTerminalSession {
  id: string;
  /** A pod shell's container (`namespace/pod/container`); null for the sidecar's shell. */
  target: string | null;
  username: string;
  role: string;
  namespace: string;
  clientIp: string;
  startedAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  commands: { at: Date; command: string }[];
}

export interface PodExecRequest {
  user: { id: number; username: string; role: string };
  clientIp: string;
  namespace: string;
  pod: string;
  container: string;
  cols: number;
  rows: number;
}

/** Shells in pods' containers over the API server's exec (runtime/terminal/pod-exec.ts): recorded like terminal sessions. */
export interface PodExecService {
  open(request: PodExecRequest, events: TerminalEvents): Promise<Result<TerminalHandle>>;
}

/** The terminal, as handlers see it (runtime/terminal/agent-terminal.ts; the shells run in the sidecar). */
export interface TerminalService {
  open(request: TerminalOpenRequest, events: TerminalEvents): Promise<Result<TerminalHandle>>;
  /** The newest sessions, with their commands (the terminal session audit). */
  recent(limit: number): Promise<StoredTerminalSession[]>;
}
