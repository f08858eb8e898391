// Helm releases as Capstan reads them (docs/helm.md): Helm 3 keeps one Secret per revision
// (type helm.sh/release.v1); the expert pod decodes them and this file holds the rules on the
// decoded records: which revision is a release's current one, what its history says, and when
// a release is stuck in a pending state with the safe way out. Pure: no I/O, no clock but the
// one passed in.

/** Helm's release statuses (helm.sh/helm/v3 pkg/release/status.go). */
export const HELM_STATUSES = ['unknown', 'deployed', 'uninstalled', 'superseded', 'failed', 'uninstalling', 'pending-install', 'pending-upgrade', 'pending-rollback'] as const;
export type HelmStatus = (typeof HELM_STATUSES)[number];

/** One revision of one release, as decoded from its Secret (values and manifest are read on demand). */
export interface HelmRevision {
  name: string;
  namespace: string;
  revision: number;
  status: HelmStatus;
  chart: string;
  chartVersion: string;
  appVersion: string;
  /** When this revision was last deployed (Helm's `info.last_deployed`); null when Helm wrote none. */
  updated: Date | null;
  description: string;
}

export interface HelmRelease {
  current: HelmRevision;
  /** Every revision Helm still keeps, newest first (the current one included). */
  history: HelmRevision[];
}

const PENDING: ReadonlySet<HelmStatus> = new Set(['pending-install', 'pending-upgrade', 'pending-rollback']);

/** How long a pending status may last before it counts as stuck: Helm's own default `--timeout` (5 min) and a minute's slack. */
export const STUCK_AFTER_MS = 6 * 60 * 1000;

export function isHelmStatus(value: string): value is HelmStatus {
  return (HELM_STATUSES as readonly string[]).includes(value);
}

/** Revisions grouped into releases: the highest revision is the current one (what `helm list` shows). */
export function groupReleases(revisions: readonly HelmRevision[]): HelmRelease[] {
  const byRelease = new Map<string, HelmRevision[]>();
  for (const r of revisions) {
    const key = `${r.namespace}/${r.name}`;
    const list = byRelease.get(key);
    if (list) list.push(r);
    else byRelease.set(key, [r]);
  }
  const releases: HelmRelease[] = [];
  for (const list of byRelease.values()) {
    const history = [...list].sort((a, b) => b.revision - a.revision);
    const current = history[0];
    if (current) releases.push({ current, history });
  }
  return releases.sort((a, b) => a.current.namespace.localeCompare(b.current.namespace) || a.current.name.localeCompare(b.current.name));
}

/** The safe way out of a stuck release, offered as an admin action. */
export type StuckRecovery = { action: 'rollback'; toRevision: number } | { action: 'uninstall' };

export interface StuckRelease {
  /** The diagnosis code (docs/diagnosis.md). */
  code: 'helm_release_stuck';
  status: HelmStatus;
  sinceMs: number;
  message: string;
  recovery: StuckRecovery;
}

/**
 * A release whose current revision has been pending longer than STUCK_AFTER_MS: the Helm
 * process that wrote it died (or is still waiting), and every later upgrade fails with
 * "another operation is in progress". The way out that loses nothing is a rollback to the
 * newest revision that was deployed (Helm's rollback does not refuse a pending release); a
 * first install that never finished has nothing to go back to, so it is uninstalled.
 */
export function stuckRelease(release: HelmRelease, now: Date): StuckRelease | null {
  const { current } = release;
  if (!PENDING.has(current.status) || current.updated === null) return null;
  const sinceMs = now.getTime() - current.updated.getTime();
  if (sinceMs < STUCK_AFTER_MS) return null;
  const lastGood = release.history.find((r) => r.revision < current.revision && (r.status === 'deployed' || r.status === 'superseded'));
  const minutes = Math.floor(sinceMs / 60_000);
  const where = `${current.namespace}/${current.name}`;
  if (lastGood) {
    return {
      code: 'helm_release_stuck',
      status: current.status,
      sinceMs,
      message: `Release ${where} has been ${current.status} for ${String(minutes)} min (revision ${String(current.revision)}): every upgrade fails until it is recovered. Rolling back to revision ${String(lastGood.revision)}, the last one deployed, ends the pending state.`,
      recovery: { action: 'rollback', toRevision: lastGood.revision },
    };
  }
  return {
    code: 'helm_release_stuck',
    status: current.status,
    sinceMs,
    message: `Release ${where} has been ${current.status} for ${String(minutes)} min and no revision of it was ever deployed: uninstalling it lets it be installed again.`,
    recovery: { action: 'uninstall' },
  };
}

/** The release list as a handler reads it, or why it cannot be read now. */
export type HelmListAnswer = { ok: true; releases: HelmRelease[]; truncated: boolean } | { ok: false; reason: string; notInstalled: boolean };

/** Where the release list comes from (the expert pod's watch); the runtime hands handlers one cut to the caller's namespaces. */
export interface HelmReleaseSource {
  list(): Promise<HelmListAnswer>;
}

/** `source` without the releases of namespaces outside `inScope`. */
export function scopeHelmReleases(source: HelmReleaseSource, inScope: (namespace: string) => boolean): HelmReleaseSource {
  return {
    async list() {
      const answer = await source.list();
      return answer.ok ? { ok: true, releases: answer.releases.filter((r) => inScope(r.current.namespace)), truncated: answer.truncated } : answer;
    },
  };
}
