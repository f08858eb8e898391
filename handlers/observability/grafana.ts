// Grafana (docs/observability.md, "Grafana"): the dashboards list (admin), what the Overview
// embeds (anyone signed in: a URL and a uid, never the token), and importing a dashboard through
// /api/dashboards/import with its `${DS_PROMETHEUS}`-style inputs resolved to Grafana's own
// Prometheus data source, so panels do not come out bound to a data source that does not
// exist (what other tools hit with /api/dashboards/db, which resolves no inputs).
import type * as v from 'valibot';
import type { GrafanaDashboards, GrafanaImportAnswer, GrafanaImportInput, GrafanaOverview } from '../../schema/observability.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

const noGrafana = { code: 'conflict', field: 'grafana', message: 'no Grafana is configured (Admin → Observability)' } as const;

export async function grafanaDashboards(_input: object, ctx: HandlerContext): Promise<Result<v.InferOutput<typeof GrafanaDashboards>>> {
  const { grafana } = await ctx.runtimeSettings.get('observability');
  if (grafana === null) return fail(noGrafana);
  const answer = await ctx.observability.grafana.call(grafana, 'GET', '/api/search?type=dash-db&limit=500');
  if (!answer.ok) return fail({ code: 'upstream_unavailable', message: answer.message });
  const rows = Array.isArray(answer.body) ? (answer.body as { uid?: unknown; title?: unknown; url?: unknown; folderTitle?: unknown }[]) : [];
  return ok({
    dashboards: rows
      .filter((d) => typeof d.uid === 'string' && typeof d.title === 'string')
      .map((d) => ({ uid: d.uid as string, title: d.title as string, url: typeof d.url === 'string' ? new URL(d.url, grafana.url).toString() : '', folder: typeof d.folderTitle === 'string' ? d.folderTitle : null })),
  });
}

export async function grafanaOverview(_input: object, ctx: HandlerContext): Promise<Result<v.InferOutput<typeof GrafanaOverview>>> {
  const { grafana } = await ctx.runtimeSettings.get('observability');
  if (grafana === null) return ok({ configured: false, uid: null, url: null, origin: null });
  const origin = new URL(grafana.url).origin;
  if (grafana.overview_uid === null) return ok({ configured: true, uid: null, url: null, origin });
  const base = grafana.url.endsWith('/') ? grafana.url : `${grafana.url}/`;
  return ok({ configured: true, uid: grafana.overview_uid, url: new URL(`d/${encodeURIComponent(grafana.overview_uid)}?kiosk`, base).toString(), origin });
}

interface DashboardInput {
  name?: unknown;
  type?: unknown;
  pluginId?: unknown;
}

export async function grafanaImport(input: v.InferOutput<typeof GrafanaImportInput>, ctx: HandlerContext): Promise<Result<v.InferOutput<typeof GrafanaImportAnswer>>> {
  const { grafana } = await ctx.runtimeSettings.get('observability');
  if (grafana === null) return fail(noGrafana);
  const sources = await ctx.observability.grafana.call(grafana, 'GET', '/api/datasources');
  if (!sources.ok) return fail({ code: 'upstream_unavailable', message: sources.message });
  const prometheus = (Array.isArray(sources.body) ? (sources.body as { uid?: unknown; type?: unknown; isDefault?: unknown }[]) : []).filter((d) => d.type === 'prometheus' && typeof d.uid === 'string').sort((a, b) => Number(b.isDefault === true) - Number(a.isDefault === true))[0];
  if (!prometheus) return fail({ code: 'conflict', field: 'dashboard', message: 'Grafana has no Prometheus data source to bind the dashboard\'s panels to' });
  const uid = prometheus.uid as string;
  const declared = Array.isArray(input.dashboard.__inputs) ? (input.dashboard.__inputs as DashboardInput[]) : [];
  const unknown = declared.find((i) => i.type === 'datasource' && i.pluginId !== 'prometheus');
  if (unknown) return fail({ code: 'invalid_input', field: 'dashboard.__inputs', message: `the dashboard asks for a ${String(unknown.pluginId)} data source; only Prometheus inputs are resolved` });
  const inputs = declared.filter((i) => i.type === 'datasource' && typeof i.name === 'string').map((i) => ({ name: i.name as string, type: 'datasource', pluginId: 'prometheus', value: uid }));
  ctx.request.noteAudit({ title: typeof input.dashboard.title === 'string' ? input.dashboard.title.slice(0, 200) : '(untitled)', inputs: String(inputs.length) });
  const imported = await ctx.observability.grafana.call(grafana, 'POST', '/api/dashboards/import', { dashboard: input.dashboard, overwrite: true, inputs, ...(input.folder_uid === undefined ? {} : { folderUid: input.folder_uid }) });
  if (!imported.ok) return fail(imported.status >= 400 && imported.status < 500 ? { code: 'invalid_input', field: 'dashboard', message: imported.message } : { code: 'upstream_unavailable', message: imported.message });
  const body = imported.body as { uid?: unknown; title?: unknown; importedUrl?: unknown };
  const base = grafana.url.endsWith('/') ? grafana.url : `${grafana.url}/`;
  return ok({ uid: typeof body.uid === 'string' ? body.uid : '', title: typeof body.title === 'string' ? body.title : '', url: typeof body.importedUrl === 'string' ? new URL(body.importedUrl.replace(/^\//, ''), base).toString() : '', datasource_uid: uid });
}
