import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarise } from '../../scripts/cpu-profile-summary.ts';

const frame = (functionName: string, url = '') => ({ functionName, url });

test('summarise charges a sample to the innermost purpose on its stack, else to its innermost mechanism', () => {
  // root → compose (hono) → resolveApiKey → kysely → libsql: the SQLite time is the key lookup's.
  // root → compose → listPods (handler): the handler's. root → writev: a socket write. root → (idle).
  const nodes = [
    { id: 1, callFrame: frame('(root)'), hitCount: 0, children: [2, 6, 7] },
    { id: 2, callFrame: frame('dispatch', 'file:///x/node_modules/hono/dist/compose.js'), hitCount: 1, children: [3, 5] },
    { id: 3, callFrame: frame('resolveApiKey', 'file:///x/runtime/auth/service.ts'), hitCount: 0, children: [4] },
    { id: 4, callFrame: frame('run', 'file:///x/node_modules/libsql/index.js'), hitCount: 4 },
    { id: 5, callFrame: frame('listPods', 'file:///x/handlers/namespaces/pods.ts'), hitCount: 2 },
    { id: 6, callFrame: frame('writev'), hitCount: 2 },
    { id: 7, callFrame: frame('(idle)'), hitCount: 1 },
  ];
  const shares = Object.fromEntries(summarise({ nodes }).map((s) => [s.category, s.percent]));
  assert.deepEqual(shares, {
    'credential check (key hash, lookup, cache)': 40,
    'handler (cluster read, answer built)': 20,
    'response write (socket, writev)': 20,
    'routing and middleware chain (hono, runtime/http)': 10,
    'idle (waiting for the client or the kernel)': 10,
  });
});
