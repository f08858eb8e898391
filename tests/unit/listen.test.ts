import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseListen } from '../../runtime/agent.ts';

it('parses --listen as :port or host:port and rejects anything else', () => {
  assert.deepEqual(parseListen(':8080'), { hostname: '0.0.0.0', port: 8080 });
  assert.deepEqual(parseListen('127.0.0.1:0'), { hostname: '127.0.0.1', port: 0 });
  assert.throws(() => parseListen('8080'), /host:port/);
  assert.throws(() => parseListen(':99999'), /out of range/);
});
