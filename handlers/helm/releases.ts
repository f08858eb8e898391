// Helm reads (`helm:read`): the releases of the caller's namespaces with their stuck-release
// diagnosis, and one release's history and values (secrets redacted by the expert pod).
import { stuckRelease, type HelmRelease, type HelmRevision } from '../../domain/helm/release.ts';
import type { Out } from '../../schema/common.ts';
import type { HelmReleaseDetail, HelmReleaseList, HelmReleaseListInput, HelmReleaseOut, HelmReleaseRef, HelmRevisionOut } from '../../schema/helm.ts';
import type { AuthedContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';

function revisionOut(r: HelmRevision): Out<typeof HelmRevisionOut> {
  return { revision: r.revision, status: r.status, chart: r.chart, chart_version: r.chartVersion, app_version: r.appVersion, updated: r.updated?.toISOString() ?? null, description: r.description };
}

function releaseOut(release: HelmRelease, now: Date): Out<typeof HelmReleaseOut> {
  const stuck = stuckRelease(release, now);
  return {
    name: release.current.name,
    namespace: release.current.namespace,
    ...revisionOut(release.current),
    stuck: stuck === null ? null : { code: stuck.code, message: stuck.message, recovery: stuck.recovery.action === 'rollback' ? { action: 'rollback', to_revision: stuck.recovery.toRevision } : { action: 'uninstall' } },
  };
}

export async function listReleases(input: Out<typeof HelmReleaseListInput>, ctx: AuthedContext): Promise<Result<Out<typeof HelmReleaseList>>> {
  const answer = await ctx.helmReleases.list();
  if (!answer.ok) return fail({ code: answer.notInstalled ? 'expert_not_installed' : 'expert_unavailable', message: answer.reason });
  const now = ctx.clock.now();
  const releases = answer.releases.filter((r) => input.namespace === undefined || r.current.namespace === input.namespace).map((r) => releaseOut(r, now));
  return ok({ releases, truncated: answer.truncated });
}

export async function getRelease(input: Out<typeof HelmReleaseRef>, ctx: AuthedContext): Promise<Result<Out<typeof HelmReleaseDetail>>> {
  const answer = await ctx.helmReleases.list();
  if (!answer.ok) return fail({ code: answer.notInstalled ? 'expert_not_installed' : 'expert_unavailable', message: answer.reason });
  const release = answer.releases.find((r) => r.current.namespace === input.namespace && r.current.name === input.name);
  if (!release) return fail({ code: 'not_found', message: `no release ${input.namespace}/${input.name}` });
  const values = await ctx.helm.values(input.namespace, input.name);
  if (!values.ok) return values;
  return ok({ release: releaseOut(release, ctx.clock.now()), history: release.history.map(revisionOut), values: values.value });
}
