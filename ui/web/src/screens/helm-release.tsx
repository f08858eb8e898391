// One Helm release (docs/helm.md): its history and values, and for admins upgrade (previewed
// first), roll back to a chosen revision and uninstall, each confirmed.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../api/client';
import { release as releaseQuery, rollbackRelease, uninstallRelease, type HelmReleaseDetail, type HelmRevision, type ReleaseRef } from '../api/queries/helm';
import { me } from '../api/queries/session';
import { SortableTable, type Column } from '../components/sortable-table';
import { Empty } from '../components/states';
import { Time } from '../components/time';

import { Confirm, HelmActionError, HelmQueryView, StatusBadge, StuckRecovery, TaskStarted } from '../components/helm-parts';
import { ChartForm, EMPTY_DRAFT } from './helm-install';

// ---------------------------------------------------------------------------------------------
// One release.

const HISTORY_COLUMNS: Column<HelmRevision>[] = [
  { key: 'revision', label: 'Revision', value: (h) => h.revision, numeric: true, rowHeader: true },
  { key: 'status', label: 'Status', value: (h) => h.status, render: (h) => <StatusBadge status={h.status} /> },
  { key: 'chart', label: 'Chart', value: (h) => h.chart },
  { key: 'chart_version', label: 'Chart version', value: (h) => h.chart_version },
  { key: 'app_version', label: 'App version', value: (h) => h.app_version || null },
  { key: 'updated', label: 'Updated', value: (h) => h.updated, render: (h) => <Time at={h.updated} /> },
  { key: 'description', label: 'Description', value: (h) => h.description || null },
];

/** Admins: upgrade (previewed first), roll back to a chosen revision, uninstall (each confirmed). */
function ReleaseActions({ data }: { data: HelmReleaseDetail }) {
  const client = useQueryClient();
  const r = data.release;
  const rollback = useMutation(rollbackRelease(client));
  const uninstall = useMutation(uninstallRelease(client));
  const earlier = data.history.filter((h) => h.revision !== r.revision);
  const [revision, setRevision] = useState<string>(String(earlier[0]?.revision ?? ''));
  const [asking, setAsking] = useState<'rollback' | 'uninstall' | null>(null);
  const [upgrading, setUpgrading] = useState(false);
  const chosen = Number(revision);
  return (
    <section aria-labelledby="release-actions">
      <h2 id="release-actions">Actions</h2>
      <div className="filters">
        <button type="button" onClick={() => setUpgrading(!upgrading)} aria-expanded={upgrading} aria-controls="upgrade-form">
          Upgrade…
        </button>
        {earlier.length > 0 ? (
          <>
            <label>
              Revision to roll back to
              <select value={revision} onChange={(e) => setRevision(e.target.value)}>
                {earlier.map((h) => (
                  <option key={h.revision} value={String(h.revision)}>
                    {h.revision}: {h.chart} {h.chart_version} ({h.status})
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => setAsking('rollback')} disabled={rollback.isPending}>
              Roll back to revision {revision}
            </button>
          </>
        ) : (
          <span className="muted">No earlier revision to roll back to.</span>
        )}
        <button type="button" onClick={() => setAsking('uninstall')} disabled={uninstall.isPending}>
          Uninstall
        </button>
      </div>
      {asking === 'rollback' ? (
        <Confirm
          text={`Roll ${r.name} back to revision ${chosen}: Helm writes that revision's manifests and values back as revision ${r.revision + 1}.`}
          yes="Yes, roll back"
          onYes={() => (setAsking(null), rollback.mutate({ namespace: r.namespace, name: r.name, revision: chosen }))}
          onCancel={() => setAsking(null)}
        />
      ) : null}
      {asking === 'uninstall' ? (
        <Confirm
          text={`Uninstall ${r.name}: Helm deletes every object of the release in ${r.namespace}, and its history.`}
          yes="Yes, uninstall"
          onYes={() => (setAsking(null), uninstall.mutate({ namespace: r.namespace, name: r.name }))}
          onCancel={() => setAsking(null)}
        />
      ) : null}
      {rollback.data ? <TaskStarted started={rollback.data} what={`roll ${r.name} back to revision ${rollback.variables.revision}`} /> : null}
      {uninstall.data ? <TaskStarted started={uninstall.data} what={`uninstall ${r.name}`} /> : null}
      <HelmActionError error={rollback.error} what={`roll ${r.name} back`} admin />
      <HelmActionError error={uninstall.error} what={`uninstall ${r.name}`} admin />
      {upgrading ? (
        <div id="upgrade-form">
          <ChartForm
            mode="upgrade"
            initial={{ ...EMPTY_DRAFT, namespace: r.namespace, name: r.name, chart: chartName(r.chart, r.chart_version), values: Object.keys(data.values).length === 0 ? '{}' : JSON.stringify(data.values, null, 2) }}
          />
        </div>
      ) : null}
    </section>
  );
}

/** Helm's chart field is the name, or name-version: the name the repository knows. */
const chartName = (chart: string, version: string): string => (version !== '' && chart.endsWith(`-${version}`) ? chart.slice(0, -version.length - 1) : chart);

function ReleaseDetail({ data, admin }: { data: HelmReleaseDetail; admin: boolean }) {
  const r = data.release;
  return (
    <>
      <dl className="facts" aria-label="The current revision">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={r.status} />
        </dd>
        <dt>Chart</dt>
        <dd>
          {r.chart} {r.chart_version}
        </dd>
        <dt>App version</dt>
        <dd>{r.app_version || '–'}</dd>
        <dt>Revision</dt>
        <dd>{r.revision}</dd>
        <dt>Updated</dt>
        <dd>
          <Time at={r.updated} />
        </dd>
        <dt>Description</dt>
        <dd>{r.description || '–'}</dd>
      </dl>
      {r.stuck !== null ? <StuckRecovery release={r} admin={admin} /> : null}
      {admin ? <ReleaseActions data={data} /> : null}
      <section aria-labelledby="release-history">
        <h2 id="release-history">History</h2>
        <SortableTable rows={data.history} columns={HISTORY_COLUMNS} rowKey={(h) => String(h.revision)} caption="Every revision Helm keeps, newest first" accessibleName="Revisions" sortable={false} empty="Helm keeps no revision of it." />
      </section>
      <section aria-labelledby="release-values">
        <h2 id="release-values">Values</h2>
        <p className="muted">What was given to revision {r.revision} (the chart&apos;s defaults fill in the rest); values that look secret are shown as [REDACTED].</p>
        {Object.keys(data.values).length === 0 ? (
          <Empty>No values were given: the chart&apos;s defaults apply.</Empty>
        ) : (
          <pre className="log tall" tabIndex={0} aria-label={`Values of revision ${r.revision}`} data-testid="helm-values">
            {JSON.stringify(data.values, null, 2)}
          </pre>
        )}
      </section>
    </>
  );
}

export function HelmReleaseScreen({ namespace, name }: ReleaseRef) {
  const who = useQuery(me());
  const admin = who.data?.role === 'admin';
  const query = useQuery(releaseQuery({ namespace, name }));
  const gone = query.error instanceof ApiError && query.error.status === 404;
  return (
    <>
      <p className="crumbs">
        <Link href="/helm">Helm</Link> / <Link href={`/helm?namespace=${encodeURIComponent(namespace)}`}>{namespace}</Link> / {name}
      </p>
      <h1>Release {name}</h1>
      {gone ? (
        <Empty>
          No release {name} in {namespace}: it was uninstalled, or never installed. <Link href="/helm">Every release</Link>
        </Empty>
      ) : (
        <HelmQueryView query={query} what={`release ${name}`} admin={admin}>
          {(data) => <ReleaseDetail data={data} admin={admin} />}
        </HelmQueryView>
      )}
    </>
  );
}

