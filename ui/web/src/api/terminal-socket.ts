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

export function connectTerminal(options: { namespace: string; cols: number; rows: number; onOutput: (data: string) => void; onState: (state: TerminalState) => void }): TerminalConnection {
  let socket: WebSocket | null = null;
  let session: string | null = null;
  let closedByUs = false;
  let ended = false;
  let tries = 0;
  let size = { cols: options.cols, rows: options.rows };

  const url = () => {
    const query = new URLSearchParams({ namespace: options.namespace, cols: String(size.cols), rows: String(size.rows), ...(session === null ? {} : { session }) });
    return `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}/api/agent/terminal/ws?${query.toString()}`;
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
        options.onState({ kind: 'failed', message: session === null ? 'The agent refused the terminal (signed out, not allowed from this address, too many sessions, or no terminal in this install).' : 'The agent closed the terminal: your session no longer allows it.' });
        return;
      }
      if (tries >= RECONNECT_TRIES) {
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
