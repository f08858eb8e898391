// `GET /terminal/ws`: a shell in the terminal sidecar, relayed to the browser. The runtime
// authenticated the session, checked the IP lists, the Origin and the namespace before this
// runs; the session is opened here, before the upgrade is accepted, so a refusal (caps, the
// sidecar down, a session that is not yours to re-attach) is an HTTP status and nothing runs.
import * as v from 'valibot';
import type { Out } from '../../schema/common.ts';
import { TerminalClientMessage, type PodExecSocketInput, type TerminalServerMessage, type TerminalSocketInput } from '../../schema/terminal.ts';
import type { SessionContext } from '../context.ts';
import { ok, type Result } from '../result.ts';
import type { SocketAnswer, SocketPeer } from '../route.ts';
import type { TerminalEvents, TerminalHandle } from './service.ts';

/** A browser further behind than this stops the shell's output until it catches up. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 128 * 1024;
const FLOW_CHECK_MS = 25;

export function openTerminal(input: Out<typeof TerminalSocketInput>, ctx: SessionContext): Promise<Result<SocketAnswer>> {
  const principal = ctx.principal;
  return relayed((events) =>
    ctx.terminal.open({ user: { id: principal.userId, username: principal.username, role: principal.role }, clientIp: ctx.request.ip, namespace: input.namespace ?? 'default', cols: input.cols, rows: input.rows, reattach: input.session ?? null }, events),
  );
}

/** `GET /terminal/ws/pods/{namespace}/{pod}`, under the prefix the ingress sends to the agent: a shell in a pod's container, relayed and recorded like a terminal session. */
export function openPodExec(input: Out<typeof PodExecSocketInput>, ctx: SessionContext): Promise<Result<SocketAnswer>> {
  const principal = ctx.principal;
  return relayed((events) => ctx.podExec.open({ user: { id: principal.userId, username: principal.username, role: principal.role }, clientIp: ctx.request.ip, namespace: input.namespace, pod: input.pod, container: input.container, cols: input.cols, rows: input.rows }, events));
}

/**
 * A session opened by `open` (before the upgrade is accepted: its refusal is the HTTP answer),
 * relayed over the browser's WebSocket with flow control: the JSON frames of
 * schema/terminal.ts both ways.
 */
async function relayed(open: (events: TerminalEvents) => Promise<Result<TerminalHandle>>): Promise<Result<SocketAnswer>> {
  // Events that arrive before the upgrade completes wait for the socket.
  let peer: SocketPeer | null = null;
  const early: string[] = [];
  const send = (message: Out<typeof TerminalServerMessage>) => {
    const text = JSON.stringify(message);
    if (peer === null) early.push(text);
    else peer.send(text);
  };
  const opened = await open({
    output: (data) => send({ type: 'output', data }),
    exit: (code, reason) => {
      send({ type: 'exit', code, reason });
      peer?.close();
    },
  });
  if (!opened.ok) return opened;
  const session = opened.value;
  let flow: ReturnType<typeof setInterval> | null = null;
  return ok({
    open(socket) {
      peer = socket;
      socket.send(JSON.stringify({ type: 'session', id: session.id, reattached: session.reattached } satisfies Out<typeof TerminalServerMessage>));
      for (const text of early.splice(0)) socket.send(text);
      // Flow control: past HIGH_WATER unsent to the browser the shell is paused, so `yes` fills
      // neither the agent's memory nor the tab; it resumes once the browser drained to LOW_WATER.
      let paused = false;
      flow = setInterval(() => {
        const behind = socket.buffered();
        if (!paused && behind > HIGH_WATER) {
          paused = true;
          session.pause();
        } else if (paused && behind < LOW_WATER) {
          paused = false;
          session.resume();
        }
      }, FLOW_CHECK_MS);
      socket.signal.addEventListener(
        'abort',
        () => {
          if (flow !== null) clearInterval(flow);
          session.detach();
        },
        { once: true },
      );
    },
    message(text) {
      let parsed: v.SafeParseResult<typeof TerminalClientMessage>;
      try {
        parsed = v.safeParse(TerminalClientMessage, JSON.parse(text));
      } catch {
        return;
      }
      if (!parsed.success) return;
      const message = parsed.output;
      if (message.type === 'input') session.write(message.data);
      else if (message.type === 'resize') session.resize(message.cols, message.rows);
      else session.end();
    },
  });
}
