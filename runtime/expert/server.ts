// The expert pod's server (`capstan expert`, docs/expert-mode.md): the only process holding the
// cluster-admin account, answering the agent alone. Every request but /healthz carries the
// agent's projected token for the expert audience, checked by TokenReview before anything is
// read or run. It answers the Helm release list (from a watch of Helm's release Secrets), one
// release's values (redacted before they leave) and runs Helm operations, one per release at a
// time and two at most at once.
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as v from 'valibot';
import { redactValue } from '../../domain/redaction/redact.ts';
import { CHART_PACKAGE_MAX_BYTES, WireOperation, WireSelfScan, type WireReleases, type WireSelfScanResult, type WireValues } from '../../schema/expert.ts';
import { NamespaceName } from '../../schema/common.ts';
import { ReleaseName } from '../../schema/helm.ts';
import { createTransport, type KubeAccess } from '../kube/client.ts';
import type { Logger } from '../log.ts';
import { helmRunner } from './helm-runner.ts';
import { readRecord, releaseInformer } from './release-records.ts';
import type { SelfScanRunner } from './self-scan.ts';
import type { TokenReviewer } from './token-review.ts';

export interface ExpertOptions {
  listen: { hostname: string; port: number };
  kc: KubeAccess;
  reviewer: TokenReviewer;
  helm: string;
  workDir: string;
  /** Self-scans (CAPSTAN_SELF_SCAN_IMAGE and the rest); null: this expert pod runs none, POST /self-scan answers 404. */
  selfScan?: SelfScanRunner | null;
  log: Logger;
}

export interface RunningExpert {
  url: string;
  close(): Promise<void>;
}

/** Operations at once, across releases: each is a helm process holding a chart in memory. */
export const EXPERT_MAX_OPERATIONS = 2;
/** A chart package as base64 plus values and the envelope. */
const BODY_LIMIT_BYTES = Math.ceil(CHART_PACKAGE_MAX_BYTES / 3) * 4 + 256 * 1024;

/** A request body as the hop's schema reads it, or the 400 naming the field (the agent's own request, checked all the same). */
async function readWire<S extends v.GenericSchema>(c: Context, schema: S): Promise<{ ok: true; value: v.InferOutput<S> } | { ok: false; refusal: Response }> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return { ok: false, refusal: c.json({ error: 'invalid_input', field: 'body', message: 'the body must be JSON' }, 400) };
  }
  const parsed = v.safeParse(schema, body);
  if (parsed.success) return { ok: true, value: parsed.output };
  const issue = parsed.issues[0];
  return { ok: false, refusal: c.json({ error: 'invalid_input', field: v.getDotPath(issue) ?? 'body', message: issue.message }, 400) };
}

export async function startExpert(options: ExpertOptions): Promise<RunningExpert> {
  const { log } = options;
  const releases = releaseInformer(createTransport(options.kc), log);
  void releases.start();
  const runner = helmRunner({ kc: options.kc, helm: options.helm, workDir: options.workDir });
  const busy = new Set<string>();

  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.use('*', async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
    if (token === '') return c.json({ error: 'unauthenticated', message: 'a bearer token for the expert audience is required' }, 401);
    const verdict = await options.reviewer.review(token);
    if (!verdict.ok) {
      log.warn('expert call refused', { reason: verdict.reason, path: c.req.path });
      return c.json({ error: 'unauthenticated', message: verdict.reason }, 401);
    }
    await next();
  });

  app.get('/releases', (c) => c.json({ revisions: [...releases.values()], synced: releases.status().synced, truncated: releases.truncated() } satisfies WireReleases));

  app.get('/releases/:namespace/:name/values', async (c) => {
    const namespace = v.safeParse(NamespaceName, c.req.param('namespace'));
    const name = v.safeParse(ReleaseName, c.req.param('name'));
    if (!namespace.success || !name.success) return c.json({ error: 'invalid_input', message: 'namespace and name must be a namespace and a release name' }, 400);
    const current = releases.values().filter((r) => r.namespace === namespace.output && r.name === name.output).sort((a, b) => b.revision - a.revision)[0];
    if (!current) return c.json({ error: 'not_found', message: `no release ${namespace.output}/${name.output}` }, 404);
    const record = await readRecord(options.kc, namespace.output, name.output, current.revision);
    if (record === null) return c.json({ error: 'not_found', message: `release ${namespace.output}/${name.output} revision ${String(current.revision)} is gone` }, 404);
    const values = redactValue(record.config ?? {}) as Record<string, unknown>;
    return c.json({ values } satisfies WireValues);
  });

  app.post('/helm', bodyLimit({ maxSize: BODY_LIMIT_BYTES, onError: (c) => c.json({ error: 'payload_too_large', message: 'the chart package is larger than 10 MiB' }, 413) }), async (c) => {
    const parsed = await readWire(c, WireOperation);
    if (!parsed.ok) return parsed.refusal;
    const op = parsed.value;
    const key = `${op.namespace}/${op.name}`;
    if (busy.has(key)) return c.json({ error: 'conflict', field: 'name', message: `another operation on ${key} is running` }, 409);
    if (busy.size >= EXPERT_MAX_OPERATIONS) return c.json({ error: 'overloaded', message: `${String(EXPERT_MAX_OPERATIONS)} Helm operations are running; try again when one ends` }, 503);
    busy.add(key);
    log.info('helm operation', { operation: op.operation, release: key });
    try {
      const result = await runner.run(op);
      log.info('helm operation ended', { operation: op.operation, release: key, ok: result.ok });
      return c.json(result);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.warn('helm operation failed', { operation: op.operation, release: key, error: message });
      return c.json({ ok: false, timed_out: false, message }, 200);
    } finally {
      busy.delete(key);
    }
  });

  // One scan at a time: each is a Job of up to 1 CPU and 1 GiB, and the agent runs one anyway.
  let scanning = false;
  app.post('/self-scan', bodyLimit({ maxSize: 256 * 1024, onError: (c) => c.json({ error: 'payload_too_large', message: 'a self-scan request is at most 256 KiB' }, 413) }), async (c) => {
    const runner = options.selfScan;
    if (!runner) return c.json({ error: 'not_found', message: 'this expert pod runs no self-scans (CAPSTAN_SELF_SCAN_IMAGE is not set)' }, 404);
    const parsed = await readWire(c, WireSelfScan);
    if (!parsed.ok) return parsed.refusal;
    if (scanning) return c.json({ error: 'conflict', message: 'a self-scan is running' }, 409);
    scanning = true;
    try {
      return c.json(await runner.run(parsed.value));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.warn('self-scan failed', { job: parsed.value.job_name, error: message });
      return c.json({ ok: false, timed_out: false, message } satisfies WireSelfScanResult);
    } finally {
      scanning = false;
    }
  });

  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: options.listen.hostname, port: options.listen.port }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.listen.port;
  return {
    url: `http://${options.listen.hostname.includes(':') ? `[${options.listen.hostname}]` : options.listen.hostname}:${String(port)}`,
    async close() {
      releases.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
