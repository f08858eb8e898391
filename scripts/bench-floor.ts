// The framework's floor for `npm run bench`: a bare Hono app on @hono/node-server, the runtime
// the agent serves on, answering each measured path with the exact bytes the agent answered
// it with, and doing nothing else (no authentication, no policy, no cluster). Run as its own
// process, like the agent, and measured by the same client at the same concurrency in the
// same run, so Capstan's figure can be read as a share of what the framework allows.
//
//   node --import tsx scripts/bench-floor.ts <answers.json>
// answers.json: [{ "method": "GET" | "POST", "path": "/namespaces/x/pods", "body": "<the agent's answer>" }]
// Prints `floor listening <url>` on stdout once bound.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

interface Answer {
  method: 'GET' | 'POST';
  path: string;
  body: string;
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: bench-floor.ts <answers.json>');
const answers = JSON.parse(readFileSync(file, 'utf8')) as Answer[];
const app = new Hono();
for (const answer of answers) {
  // Query strings are not part of a Hono route: the floor answers the path whatever the query.
  const path = answer.path.split('?')[0] ?? answer.path;
  app.on(answer.method, path, (c) => c.body(answer.body, 200, { 'content-type': 'application/json' }));
}
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => {
  process.stdout.write(`floor listening http://127.0.0.1:${String((server.address() as AddressInfo).port)}\n`);
});
