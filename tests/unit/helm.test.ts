// The Helm rules at their boundaries: which revision is current, when a pending release is
// stuck and the safe way out, Secrets' data hidden before a diff, and Helm's storage decoded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { groupReleases, STUCK_AFTER_MS, stuckRelease, type HelmRevision, type HelmStatus } from '../../domain/helm/release.ts';
import { hideSecretData, manifestDiff } from '../../domain/helm/manifest.ts';
import { decodeReleaseSecret, revisionOf } from '../../runtime/expert/release-records.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const rev = (revision: number, status: HelmStatus, updated: Date | null = ago(60 * 60 * 1000)): HelmRevision => ({ name: 'web', namespace: 'shop', revision, status, chart: 'web', chartVersion: `1.0.${String(revision)}`, appVersion: '1', updated, description: '' });

describe('groupReleases', () => {
  it('the highest revision is current, history newest first, releases by namespace then name', () => {
    const other = { ...rev(1, 'deployed'), namespace: 'blog', name: 'db' };
    const releases = groupReleases([rev(1, 'superseded'), rev(3, 'deployed'), other, rev(2, 'superseded')]);
    assert.deepEqual(releases.map((r) => `${r.current.namespace}/${r.current.name}@${String(r.current.revision)}`), ['blog/db@1', 'shop/web@3']);
    assert.deepEqual(releases[1]?.history.map((r) => r.revision), [3, 2, 1]);
  });
});

describe('stuckRelease', () => {
  const TABLE: { name: string; history: HelmRevision[]; want: null | { action: 'rollback'; toRevision: number } | { action: 'uninstall' } }[] = [
    { name: 'deployed: not stuck', history: [rev(2, 'deployed'), rev(1, 'superseded')], want: null },
    { name: 'failed: not pending, not stuck (an upgrade can run)', history: [rev(2, 'failed'), rev(1, 'deployed')], want: null },
    { name: 'pending-upgrade for less than the threshold: Helm may still be working', history: [rev(2, 'pending-upgrade', ago(STUCK_AFTER_MS - 1)), rev(1, 'deployed')], want: null },
    { name: 'pending-upgrade at the threshold: roll back to the deployed one', history: [rev(2, 'pending-upgrade', ago(STUCK_AFTER_MS)), rev(1, 'deployed')], want: { action: 'rollback', toRevision: 1 } },
    { name: 'pending-rollback: back to the newest deployed or superseded, past a failed one', history: [rev(4, 'pending-rollback', ago(STUCK_AFTER_MS * 2)), rev(3, 'failed'), rev(2, 'superseded'), rev(1, 'superseded')], want: { action: 'rollback', toRevision: 2 } },
    { name: 'pending-install with nothing before: uninstall', history: [rev(1, 'pending-install', ago(STUCK_AFTER_MS))], want: { action: 'uninstall' } },
    { name: 'pending-upgrade after only failed revisions: uninstall', history: [rev(2, 'pending-upgrade', ago(STUCK_AFTER_MS)), rev(1, 'failed')], want: { action: 'uninstall' } },
    { name: 'pending with no time written: never guessed stuck', history: [rev(2, 'pending-upgrade', null), rev(1, 'deployed')], want: null },
  ];
  for (const row of TABLE) {
    it(row.name, () => {
      const [current] = row.history;
      assert.ok(current);
      const stuck = stuckRelease({ current, history: row.history }, NOW);
      assert.deepEqual(stuck?.recovery ?? null, row.want);
      if (stuck) {
        assert.equal(stuck.code, 'helm_release_stuck');
        assert.match(stuck.message, /shop\/web/);
      }
    });
  }
});

describe('hideSecretData', () => {
  const manifest = ['---', '# Source: web/templates/secret.yaml', 'apiVersion: v1', 'kind: Secret', 'metadata: {name: creds}', 'data: {password: c2VjcmV0}', 'stringData: {token: plain-token}', '---', 'apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: cfg}', 'data: {password: not-a-secret-kind}', ''].join('\n');
  it("replaces every Secret's data and stringData value, keeps keys and other kinds", () => {
    const hidden = hideSecretData(manifest);
    assert.doesNotMatch(hidden, /c2VjcmV0|plain-token/);
    assert.match(hidden, /password: "?\[REDACTED\]"?/);
    assert.match(hidden, /token: "?\[REDACTED\]"?/);
    assert.match(hidden, /not-a-secret-kind/, 'a ConfigMap is not a Secret');
  });
  it('an empty manifest stays empty', () => assert.equal(hideSecretData(''), ''));
});

describe('manifestDiff', () => {
  it('equal: no diff', () => assert.deepEqual(manifestDiff('a\n', 'a\n', 'shop/web'), { diff: '', added: 0, removed: 0 }));
  it('counts added and removed lines and labels both sides', () => {
    const d = manifestDiff('a: 1\nb: 2\n', 'a: 1\nb: 3\nc: 4\n', 'shop/web');
    assert.equal(d.added, 2);
    assert.equal(d.removed, 1);
    assert.match(d.diff, /--- shop\/web \(now\)/);
    assert.match(d.diff, /\+\+\+ shop\/web \(after\)/);
    assert.match(d.diff, /^-b: 2$/m);
    assert.match(d.diff, /^\+c: 4$/m);
  });
  it('an install: every line added', () => {
    const d = manifestDiff('', 'a: 1\nb: 2\n', 'shop/web');
    assert.deepEqual([d.added, d.removed], [2, 0]);
  });
});

describe("Helm's storage decoded", () => {
  const record = { name: 'web', namespace: 'shop', version: 3, info: { status: 'pending-upgrade', last_deployed: '2026-11-27T11:00:00.123456789Z', description: 'Upgrade' }, chart: { metadata: { name: 'web', version: '1.2.3', appVersion: '4.5' } }, config: { password: 'x' } };
  // Helm stores base64(gzip(json)); the API server adds Secret data's own base64.
  const secretOf = (payload: Buffer, type = 'helm.sh/release.v1') => ({ type, metadata: { name: 'sh.helm.release.v1.web.v3', namespace: 'shop' }, data: { release: Buffer.from(payload.toString('base64')).toString('base64') } });
  it('a gzipped record: every listed field', () => {
    const decoded = decodeReleaseSecret(secretOf(gzipSync(JSON.stringify(record))));
    assert.ok(decoded);
    assert.deepEqual(revisionOf(decoded, 'shop'), { name: 'web', namespace: 'shop', revision: 3, status: 'pending-upgrade', chart: 'web', chart_version: '1.2.3', app_version: '4.5', updated: '2026-11-27T11:00:00.123Z', description: 'Upgrade' });
  });
  it('a plain JSON record is read too', () => assert.equal(decodeReleaseSecret(secretOf(Buffer.from(JSON.stringify(record))))?.version, 3));
  it('another Secret type, or garbage: not a release', () => {
    assert.equal(decodeReleaseSecret(secretOf(gzipSync(JSON.stringify(record)), 'Opaque')), null);
    assert.equal(decodeReleaseSecret(secretOf(Buffer.from('not json'))), null);
  });
  it('an unknown status reads as unknown, never as deployed', () => {
    assert.equal(revisionOf({ ...record, info: { status: 'weird' } }, 'shop')?.status, 'unknown');
  });
});
