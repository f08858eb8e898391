// Helm (docs/helm.md): the releases of your namespaces (the namespace in the URL), a stuck
// release flagged with the agent's diagnosis and its safe recovery, one release's history and
// values (redacted by the agent), and for admins: install a chart, upgrade, roll back,
// uninstall. Every write is previewed or confirmed first and answers a Task at once, which
// the Tasks tray follows. Everything goes through the expert pod: with expert mode off the
// screen says so and links admins to the switch.
import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { namespaces as namespaceList } from '../api/queries/cluster';
import { releaseHref, releases, type HelmRelease } from '../api/queries/helm';
import { me } from '../api/queries/session';
import { SortableTable, type Column } from '../components/sortable-table';
import { Time } from '../components/time';

import { HelmQueryView, StatusBadge, StuckRecovery } from '../components/helm-parts';

// ---------------------------------------------------------------------------------------------
// The releases.

const RELEASE_COLUMNS: Column<HelmRelease>[] = [
  { key: 'name', label: 'Release', value: (r) => r.name, render: (r) => <Link href={releaseHref(r)}>{r.name}</Link>, rowHeader: true },
  { key: 'namespace', label: 'Namespace', value: (r) => r.namespace },
  {
    key: 'status',
    label: 'Status',
    value: (r) => r.status,
    render: (r) => (
      <>
        <StatusBadge status={r.status} />
        {r.stuck !== null ? <> <span className="flag">stuck</span></> : null}
      </>
    ),
  },
  { key: 'chart', label: 'Chart', value: (r) => r.chart },
  { key: 'chart_version', label: 'Chart version', value: (r) => r.chart_version },
  { key: 'app_version', label: 'App version', value: (r) => r.app_version || null },
  { key: 'revision', label: 'Revision', value: (r) => r.revision, numeric: true },
  { key: 'updated', label: 'Updated', value: (r) => r.updated, render: (r) => <Time at={r.updated} /> },
];

export function HelmScreen() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const namespace = new URLSearchParams(search).get('namespace') ?? '';
  const who = useQuery(me());
  const admin = who.data?.role === 'admin';
  const list = useQuery(releases(namespace === '' ? undefined : namespace));
  const nsList = useQuery(namespaceList());
  return (
    <>
      <h1>Helm</h1>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Namespace
          <select value={namespace} onChange={(e) => navigate(e.target.value === '' ? '/helm' : `/helm?namespace=${encodeURIComponent(e.target.value)}`)}>
            <option value="">all visible</option>
            {(nsList.data?.namespaces ?? []).map((n) => (
              <option key={n.name} value={n.name}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
      </form>
      {admin ? (
        <p>
          <Link className="button" href={`/helm/install${namespace === '' ? '' : `?namespace=${encodeURIComponent(namespace)}`}`}>
            Install a chart
          </Link>
        </p>
      ) : null}
      <HelmQueryView query={list} what="Helm releases" admin={admin}>
        {(data) => (
          <>
            {data.truncated ? <p className="state degraded">The expert pod keeps at most 20,000 release revisions: some releases are missing from this list.</p> : null}
            <SortableTable
              rows={data.releases}
              columns={RELEASE_COLUMNS}
              rowKey={(r) => `${r.namespace}/${r.name}`}
              caption={`${data.releases.length} ${data.releases.length === 1 ? 'release' : 'releases'}${namespace === '' ? '' : ` in ${namespace}`}`}
              accessibleName="Helm releases"
              searchLabel="Search releases"
              empty={namespace === '' ? 'No Helm release in the namespaces you may see.' : `No Helm release in ${namespace}.`}
              rowAttributes={(r) => ({ 'data-release': `${r.namespace}/${r.name}`, 'data-status': r.status })}
              // A stuck release's diagnosis and its way out span the row's width, under it.
              rowDetail={(r) => (r.stuck !== null ? <StuckRecovery release={r} admin={admin} /> : null)}
            />
          </>
        )}
      </HelmQueryView>
    </>
  );
}

