// A FAKE Grafana (Grafana cannot run here: docs/observability.md says so). It speaks the part of
// Grafana's HTTP API Capstan calls, on its real paths, with its auth header, status codes and
// error bodies: GET /api/health (no auth), GET /api/search, GET /api/datasources, POST
// /api/dashboards/import (inputs resolved into the dashboard as Grafana does: a `${NAME}` of a
// declared input replaced by the input's value; a declared input with no value is refused),
// GET /api/dashboards/uid/:uid. Every call but the health check needs `Authorization: Bearer
// <the service-account token>`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface FakeGrafana {
  url: string;
  /** Every request's method, path and authorization header, as received. */
  requests: { method: string; path: string; authorization: string | null }[];
  /** Dashboards as stored after an import, by uid. */
  dashboards: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

const UNAUTHORIZED = { extra: null, message: 'Unauthorized', messageId: 'auth.unauthorized', statusCode: 401, traceID: '' };
export const FAKE_DATASOURCE_UID = 'P1809F7CD0C75ACF3';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => resolve(body));
  });
}

const slugOf = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** `${NAME}` of each input replaced by its value, through the whole dashboard (Grafana's import does the same). */
function resolveInputs(value: unknown, inputs: Map<string, string>): unknown {
  if (typeof value === 'string') return value.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => inputs.get(name) ?? whole);
  if (Array.isArray(value)) return value.map((v) => resolveInputs(v, inputs));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveInputs(v, inputs)]));
  return value;
}

export async function startFakeGrafana(token: string): Promise<FakeGrafana> {
  const requests: FakeGrafana['requests'] = [];
  const dashboards = new Map<string, Record<string, unknown>>([['capstan-k8s', { uid: 'capstan-k8s', title: 'Kubernetes / Compute Resources / Cluster' }]]);
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://grafana');
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization ?? null });
      if (url.pathname === '/api/health') return send(res, 200, { commit: '0000000', database: 'ok', version: '11.3.0' });
      if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, UNAUTHORIZED);
      if (req.method === 'GET' && url.pathname === '/api/search') {
        return send(res, 200, [...dashboards.values()].map((d, i) => ({ id: i + 1, uid: d.uid, title: d.title, uri: `db/${slugOf(String(d.title))}`, url: `/d/${String(d.uid)}/${slugOf(String(d.title))}`, slug: '', type: 'dash-db', tags: [], isStarred: false, folderTitle: 'Capstan' })));
      }
      if (req.method === 'GET' && url.pathname === '/api/datasources') {
        return send(res, 200, [
          { id: 1, uid: 'loki-uid', orgId: 1, name: 'Loki', type: 'loki', access: 'proxy', url: 'http://loki:3100', isDefault: false },
          { id: 2, uid: FAKE_DATASOURCE_UID, orgId: 1, name: 'Prometheus', type: 'prometheus', access: 'proxy', url: 'http://prometheus:9090', isDefault: true },
        ]);
      }
      const byUid = /^\/api\/dashboards\/uid\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && byUid) {
        const d = dashboards.get(decodeURIComponent(byUid[1] ?? ''));
        return d ? send(res, 200, { dashboard: d, meta: { slug: slugOf(String(d.title)), url: `/d/${String(d.uid)}` } }) : send(res, 404, { message: 'Dashboard not found', messageId: 'dashboards.not-found', statusCode: 404, traceID: '' });
      }
      if (req.method === 'POST' && url.pathname === '/api/dashboards/import') {
        let body: { dashboard?: Record<string, unknown>; inputs?: { name?: string; value?: string }[]; overwrite?: boolean };
        try {
          body = JSON.parse(await readBody(req)) as typeof body;
        } catch {
          return send(res, 400, { message: 'bad request data', messageId: 'api.bad-request', statusCode: 400, traceID: '' });
        }
        if (typeof body.dashboard !== 'object') return send(res, 400, { message: 'bad request data', statusCode: 400 });
        const given = new Map((body.inputs ?? []).filter((i) => typeof i.name === 'string' && typeof i.value === 'string').map((i) => [i.name as string, i.value as string]));
        const declared = Array.isArray(body.dashboard.__inputs) ? (body.dashboard.__inputs as { name?: string }[]) : [];
        const missing = declared.find((i) => typeof i.name === 'string' && !given.has(i.name));
        if (missing) return send(res, 400, { message: `Dashboard input missing: ${String(missing.name)}`, messageId: 'dashboard-import.input-missing', statusCode: 400, traceID: '' });
        const rest = resolveInputs(body.dashboard, given) as Record<string, unknown>;
        delete rest.__inputs;
        const uid = typeof rest.uid === 'string' && rest.uid !== '' ? rest.uid : `imp${String(dashboards.size)}`;
        const title = typeof rest.title === 'string' ? rest.title : 'Untitled';
        if (dashboards.has(uid) && body.overwrite !== true) return send(res, 412, { message: 'A dashboard with the same uid already exists', status: 'name-exists' });
        dashboards.set(uid, { ...rest, uid, title });
        return send(res, 200, { pluginId: '', title, imported: true, importedUri: `db/${slugOf(title)}`, importedUrl: `/d/${uid}/${slugOf(title)}`, slug: slugOf(title), dashboardId: dashboards.size, folderId: 0, folderUid: '', importedRevision: 1, revision: 1, description: '', path: '', removed: false, uid });
      }
      return send(res, 404, { message: 'Not found', statusCode: 404 });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`,
    requests,
    dashboards,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
