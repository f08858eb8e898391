import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailedRun, load } from '../../scripts/bench-load.ts';

describe('benchmark load', () => {
  it('fails a measured run that got any non-2xx answer, with the status histogram', async () => {
    let n = 0;
    const throttled = () => Promise.resolve(new Response('{}', { status: ++n % 3 === 0 ? 429 : 200 }));
    await assert.rejects(load(throttled, 2, 30), (err: unknown) => err instanceof FailedRun && err.statuses['429'] === 10 && err.statuses['200'] === 20);
  });

  it('measures a run whose every answer was served', async () => {
    const served = () => Promise.resolve(new Response('{}', { status: 200 }));
    const result = await load(served, 3, 30);
    assert.equal(result.requests, 30);
    assert.equal(result.errors, 0);
  });
});
