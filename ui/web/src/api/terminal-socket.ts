// One browser terminal session over `/api/agent/terminal/ws` (docs/terminal.md): JSON frames,
// the session id kept so a dropped connection re-attaches to the same shell within the
// agent's grace period. The WebSocket goes to the agent directly (the ingress routes
// /api/agent/terminal/ws to it; the dashboard server handles no upgrade).

export type TerminalState = { kind: 'connecting' } | { kind: 'open'; session: string } | { kind: 'reconnecting'; session: string } | { kind: 'ended'; reason: string; code: number | null } | { kind: 'failed'; message: string };

export interface TerminalConnection {
  send(data: string): void;
  resize(cols: number, rows: number): void;
  close(): void;
}

interface ServerMessage {
  type: string;
  id?: string;
  data?: string;
  code?: number | null;
  reason?: string;
  message?: string;
}

/** How often a dropped connection is retried before giving up (the agent keeps the shell 60 s by default). */
const RECONNECT_TRIES = 5;
const RECONNECT_DELAY_MS = 2000;

/** A shell in a pod's container (pod exec) instead of the terminal sidecar's: it has no re-attach (the browser leaving ends it). */
export interface PodTarget {
  pod: string;
  container: string;
}

export function connectTerminal(options: { namespace: string; target?: PodTarget; cols: number; rows: number; onOutput: (data: string) => void; onState: (state: TerminalState) => void }): TerminalConnection {
  let socket: WebSocket | null = null;
  let session: string | null = null;
  let closedByUs = false;
  let ended = false;
  let tries = 0;
  let size = { cols: options.cols, rows: options.rows };

  const url = () => {
    const base = `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}/api/agent/terminal/ws`;
    const { target } = options;
    if (target !== undefined) return `${base}/pods/${encodeURIComponent(options.namespace)}/${encodeURIComponent(target.pod)}?${new URLSearchParams({ container: target.container, cols: String(size.cols), rows: String(size.rows) }).toString()}`;
    return `${base}?${new URLSearchParams({ namespace: options.namespace, cols: String(size.cols), rows: String(size.rows), ...(session === null ? {} : { session }) }).toString()}`;
  };

  const open = () => {
    const ws = new WebSocket(url());
    socket = ws;
    ws.onmessage = (event: MessageEvent<string>) => {
      const message = JSON.parse(event.data) as ServerMessage;
      if (message.type === 'session' && message.id) {
        session = message.id;
        tries = 0;
        options.onState({ kind: 'open', session: message.id });
      } else if (message.type === 'output' && message.data !== undefined) options.onOutput(message.data);
      else if (message.type === 'exit') {
        ended = true;
        options.onState({ kind: 'ended', reason: message.reason ?? 'exited', code: message.code ?? null });
      } else if (message.type === 'error') options.onState({ kind: 'failed', message: message.message ?? 'the agent closed the terminal' });
    };
    ws.onclose = (event) => {
      if (closedByUs || ended) return;
      // Refused before it opened (the agent answered the upgrade with an error status) or a policy close: say so.
      if (session === null || event.code === 1008) {
        const refused =
          options.target !== undefined
            ? "The agent refused the pod's shell (only admins open one; the agent's own RBAC must grant pods/exec, which rbac.allowWrites does; the container must be running)."
            : 'The agent refused the terminal (signed out, not allowed from this address, too many sessions, or no terminal in this install).';
        options.onState({ kind: 'failed', message: session === null ? refused : 'The agent closed the terminal: your session no longer allows it.' });
        return;
      }
      if (tries >= RECONNECT_TRIES || options.target !== undefined) {
        options.onState({ kind: 'failed', message: 'The connection dropped and could not be restored.' });
        return;
      }
      tries++;
      options.onState({ kind: 'reconnecting', session });
      setTimeout(open, RECONNECT_DELAY_MS);
    };
  };
  options.onState({ kind: 'connecting' });
  open();

  const sendFrame = (frame: object) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  return {
    send: (data) => sendFrame({ type: 'input', data }),
    resize: (cols, rows) => {
      size = { cols, rows };
      sendFrame({ type: 'resize', cols, rows });
    },
    close: () => {
      closedByUs = true;
      sendFrame({ type: 'close' });
      socket?.close();
    },
  };
}
