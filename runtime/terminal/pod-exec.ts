// Pod exec (docs/terminal.md "Pod exec"): a shell in a pod's container over the API server's
// exec WebSocket (the channel protocol, v5 or v4), with the agent's own credential, relayed to
// the browser like a terminal session and recorded like one: the session in the terminal
// session audit (its `target` the container), `terminal_session_start` in the general log, each
// command in the command record. Commands come from the same shell-integration marks as the
// sidecar's: when the container has bash, it starts with the session's rc file (handed in on a
// file descriptor, never written into the container); without bash it gets `sh -i`, and the
// session is recorded without its commands. The agent's RBAC decides: the API server refuses
// the exec unless `rbac.allowWrites` granted pods/exec, and that refusal is the answer.
import { randomBytes } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { Headers } from 'node-fetch';
import { WebSocket, type RawData } from 'ws';
import { redactCommand } from '../../domain/terminal/command-redaction.ts';
import { createMarkReader } from '../../domain/terminal/shell-marks.ts';
import { fail, ok } from '../../handlers/result.ts';
import type { PodExecRequest, PodExecService, TerminalEvents, TerminalHandle } from '../../handlers/terminal/service.ts';
import type { KubeAccess } from '../kube/client.ts';
import { WRITES_USER_AGENT } from '../kube/writes.ts';
import type { Logger } from '../log.ts';
import { sessionRcFile } from './rc-file.ts';
import type { SessionRecords } from './session-records.ts';

const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;
const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
const CONNECT_TIMEOUT_MS = 10_000;

/** The command the container runs: bash with the session's rc file on fd 3 when it has bash, else sh. */
export function execCommand(options: { nonce: string; pod: string }): string[] {
  const rc = sessionRcFile({ nonce: options.nonce, historyFile: '/dev/null', userRc: null, prompt: `${options.pod}:\\w\\$ ` });
  const script = ['if command -v bash >/dev/null 2>&1; then', "exec bash --rcfile /dev/fd/3 -i 3<<'CAPSTAN_RC'", rc, 'CAPSTAN_RC', 'fi', 'exec sh -i', ''].join('\n');
  return ['sh', '-c', script];
}

interface Live {
  id: string;
  userId: number;
  socket: WebSocket;
  events: TerminalEvents;
  endReason: string | null;
}

export function createPodExec(kc: KubeAccess, records: SessionRecords, log: Logger, limits: { maxPerUser: number; maxTotal: number }): PodExecService & { stop(): void } {
  const live = new Map<string, Live>();
  records.closeLeftOpen('pod');

  const ended = (entry: Live, code: number | null, reason: string): void => {
    if (live.get(entry.id) !== entry) return;
    live.delete(entry.id);
    const why = entry.endReason ?? reason;
    entry.events.exit(code, why);
    entry.socket.close();
    records.ended(entry.id, why);
  };

  const frame = (channel: number, data: Buffer | string): Buffer => Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data, 'utf8') : data]);

  return {
    async open(request: PodExecRequest, events: TerminalEvents) {
      const mine = [...live.values()].filter((l) => l.userId === request.user.id).length;
      if (mine >= limits.maxPerUser) return fail({ code: 'rate_limited', message: `at most ${String(limits.maxPerUser)} pod shells per user are open; close one first`, retryAfterSecs: 5 });
      if (live.size >= limits.maxTotal) return fail({ code: 'overloaded', message: `at most ${String(limits.maxTotal)} pod shells are open at once`, retryAfterSecs: 30 });
      const server = kc.getCurrentCluster()?.server;
      if (!server) return fail({ code: 'not_ready', message: 'the agent has no API server configured' });

      const id = randomBytes(18).toString('base64url');
      const nonce = randomBytes(16).toString('hex');
      const query = new URLSearchParams({ container: request.container, stdin: 'true', stdout: 'true', stderr: 'true', tty: 'true' });
      for (const part of execCommand({ nonce, pod: request.pod })) query.append('command', part);
      const url = `${server.replace(/^http/, 'ws')}/api/v1/namespaces/${encodeURIComponent(request.namespace)}/pods/${encodeURIComponent(request.pod)}/exec?${query.toString()}`;
      const tls: RequestOptions = {};
      await kc.applyToHTTPSOptions(tls);
      const headers = new Headers((await kc.applyToFetchOptions({})).headers);
      headers.set('User-Agent', WRITES_USER_AGENT);

      const socket = new WebSocket(url, PROTOCOLS, { ...tls, headers: Object.fromEntries(headers.entries()), handshakeTimeout: CONNECT_TIMEOUT_MS, perMessageDeflate: false });
      const opened = await new Promise<{ ok: true } | { ok: false; status: number; message: string }>((resolve) => {
        socket.once('open', () => resolve({ ok: true }));
        socket.once('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8').slice(0, 2000)));
          res.on('end', () => {
            let message = body;
            try {
              message = (JSON.parse(body) as { message?: string }).message ?? body;
            } catch {
              // not a Status object
            }
            resolve({ ok: false, status: res.statusCode ?? 502, message });
          });
        });
        socket.once('error', (err) => resolve({ ok: false, status: 502, message: err.message }));
      });
      if (!opened.ok) {
        socket.terminate();
        if (opened.status === 403) return fail({ code: 'forbidden', message: `the API server refused the agent a shell in ${request.namespace}/${request.pod} (pods/exec needs rbac.allowWrites=true): ${opened.message}` });
        if (opened.status === 404 || opened.status === 400) return fail({ code: 'not_found', message: `no running container ${request.container} in pod ${request.namespace}/${request.pod}: ${opened.message}` });
        return fail({ code: 'not_ready', message: `the exec could not start: ${opened.message}` });
      }

      const entry: Live = { id, userId: request.user.id, socket, events, endReason: null };
      live.set(id, entry);
      const recorded = { id, user: request.user, namespace: request.namespace, clientIp: request.clientIp, target: `${request.namespace}/${request.pod}/${request.container}`, credential: "the agent's own (pod exec)" };
      await records.started(recorded);
      socket.send(frame(CHANNEL.resize, JSON.stringify({ Width: request.cols, Height: request.rows })));

      const marks = createMarkReader(nonce);
      const decoders = { [CHANNEL.stdout]: new StringDecoder('utf8'), [CHANNEL.stderr]: new StringDecoder('utf8') } as Record<number, StringDecoder>;
      let exitCode: number | null = null;
      socket.on('message', (raw: RawData) => {
        const data = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
        const channel = data[0];
        const body = data.subarray(1);
        if (channel === CHANNEL.stdout || channel === CHANNEL.stderr) {
          const text = decoders[channel]?.write(body) ?? '';
          for (const mark of marks(text)) {
            if (mark.kind === 'command') records.command(recorded, redactCommand(mark.command));
          }
          events.output(text);
        } else if (channel === CHANNEL.error) {
          // The exec's end: a Status, Success or a non-zero exit code (a kubelet's ExitCode cause;
          // KWOK says `exit status N` at the end of its message). The message repeats the command,
          // nonce included: it is read for the code and never passed on or logged.
          try {
            const status = JSON.parse(body.toString('utf8')) as { status?: string; message?: string; details?: { causes?: { reason?: string; message?: string }[] } };
            const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message;
            const said = /exit status ([0-9]{1,3})$/.exec(status.message ?? '')?.[1];
            exitCode = status.status === 'Success' ? 0 : cause !== undefined ? Number(cause) : said !== undefined ? Number(said) : null;
          } catch {
            exitCode = null;
          }
        }
      });
      socket.on('close', () => ended(entry, exitCode, 'exited'));
      socket.on('error', (err) => {
        log.warn('a pod exec connection failed', { session: id, error: err.message });
        ended(entry, null, 'connection_lost');
      });

      const handle: TerminalHandle = {
        id,
        reattached: false,
        write: (data) => {
          if (socket.readyState === WebSocket.OPEN) socket.send(frame(CHANNEL.stdin, data));
        },
        resize: (cols, rows) => {
          if (socket.readyState === WebSocket.OPEN) socket.send(frame(CHANNEL.resize, JSON.stringify({ Width: cols, Height: rows })));
        },
        pause: () => socket.pause(),
        resume: () => socket.resume(),
        // A pod shell has no grace period: the browser leaving ends it (the container's shell is not the agent's to keep).
        detach: () => {
          entry.endReason = 'detached';
          ended(entry, null, 'detached');
        },
        end: () => {
          entry.endReason = 'closed';
          ended(entry, null, 'closed');
        },
      };
      return ok(handle);
    },
    stop() {
      for (const entry of [...live.values()]) {
        entry.endReason = 'agent_stopping';
        ended(entry, null, 'agent_stopping');
      }
    },
  };
}

/** Where the agent has no API server (tests of other surfaces): no pod shells. */
export const noPodExec: PodExecService = {
  open: () => Promise.resolve(fail({ code: 'not_ready', message: 'this agent has no API server to exec through' })),
};
