// One bucket size per window, whoever answers: the history store, the app network-history
// route when the kubelet scrape is off (it never asks the store), and /metrics/history on the
// no-history stub. A chart's x axis must not depend on which path served it.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HISTORY_BUCKETS } from '../../handlers/metrics/history.ts';
import { HistoryStore } from '../../runtime/metrics/history-store.ts';
import { openDatabase } from '../../runtime/store/database.ts';
import { HISTORY_WINDOWS, type HistoryWindow } from '../../schema/metrics.ts';
import { testApp } from '../support/app.ts';
import { ManualClock } from '../support/services.ts';

/** Whole multiples of the tier's resolution: 60 s raw samples within 25 h, 10-minute points beyond. */
const rows: { window: HistoryWindow; want: number }[] = [
  { window: '1h', want: 60 },
  { window: '6h', want: 180 },
  { window: '24h', want: 720 },
  { window: '7d', want: 5400 },
];

/** A clock on a whole second, and one half a second past it (the size must not depend on the phase). */
const NOWS = [new Date('2026-11-21T12:00:00.000Z'), new Date('2026-11-21T12:00:00.500Z')];

async function storeAnswer(now: Date, window: HistoryWindow): Promise<number> {
  const clock = new ManualClock(now);
  const store = new HistoryStore(await openDatabase(mkdtempSync(join(tmpdir(), 'capstan-buckets-')), clock), clock);
  const from = new Date(now.getTime() - HISTORY_WINDOWS[window] * 1000);
  return (await store.query({ scope: 'pod', namespace: 'shop', pod: 'web-1', from, to: now, buckets: HISTORY_BUCKETS })).bucketSecs;
}

describe('history bucket size', () => {
  it('is the same for a window from the store, the unavailable app network history and the no-history stub', async () => {
    for (const now of NOWS) {
      const h = await testApp({ clock: new ManualClock(now) });
      const admin = await h.signIn();
      const created = await h.call('POST', '/apps', { cookie: admin, body: { name: 'shop', namespaces: ['shop'], selector: { match_labels: { app: 'web' } } } });
      assert.equal(created.status, 200, created.text);
      for (const { window, want } of rows) {
        const label = `${window} at ${now.toISOString()}`;
        const network = await h.call('GET', `/apps/${String(created.body.id)}/network-history?window=${window}`, { cookie: admin });
        assert.equal(network.body.available, false, label);
        const stub = await h.call('GET', `/metrics/history?window=${window}`, { cookie: admin });
        assert.deepEqual(
          { store: await storeAnswer(now, window), appNetworkUnavailable: network.body.bucket_secs, metricsStub: stub.body.bucket_secs },
          { store: want, appNetworkUnavailable: want, metricsStub: want },
          label,
        );
      }
    }
  });
});
