import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ok } from '../../handlers/result.ts';
import { createApp, documentedRoutes } from '../../runtime/http/app.ts';
import { defineRoute } from '../../handlers/route.ts';
import { openApiDocument, openApiPath } from '../../runtime/http/openapi.ts';
import { silentLogger } from '../../runtime/log.ts';
import { rawEndpoints, routes } from '../../runtime/routes.ts';
import { authentication, roleCheck } from '../../runtime/http/middleware/authenticate.ts';
import { testServices, VIEWER_PASSWORD } from '../support/services.ts';

const GOLDEN = new URL('../golden/openapi.json', import.meta.url);
const services = await testServices();

describe('OpenAPI document', () => {
  const listed = documentedRoutes(routes, rawEndpoints);
  const doc = openApiDocument(listed, '0.0.0-test');

  it('documents every route of the table with its method, and the copilot chat endpoint', () => {
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      assert.ok(op, `${route.method} ${route.path} is not documented`);
    }
    const documented = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    assert.equal(documented, routes.length, 'the document has operations neither the table nor the documented raw endpoints have');
    assert.ok(doc.paths['/copilot/chat']?.post, 'chat is documented');
    assert.equal(doc.paths['/mcp'], undefined, "MCP's JSON-RPC endpoint is not");
  });

  it('documents a streaming route with its events beside its JSON answer', () => {
    const op = doc.paths['/copilot/chat']?.post as { responses: Record<string, { content: Record<string, { schema: { oneOf?: { properties: { type: { const: string } } }[]; anyOf?: { properties: { type: { const: string } } }[] } }> }> };
    const content = op.responses['200']?.content ?? {};
    assert.deepEqual(Object.keys(content).sort(), ['application/json', 'text/event-stream']);
    const variants = content['text/event-stream']?.schema.anyOf ?? content['text/event-stream']?.schema.oneOf ?? [];
    assert.deepEqual(variants.map((s) => s.properties.type.const).sort(), ['done', 'error', 'step', 'text', 'tool-call', 'tool-result']);
    const plain = doc.paths['/namespaces']?.get as { responses: Record<string, { content: Record<string, unknown> }> };
    assert.deepEqual(Object.keys(plain.responses['200']?.content ?? {}), ['application/json'], 'a route that does not stream has no event stream');
  });

  it('matches the committed golden file (UPDATE_GOLDEN=1 rewrites it after an intended change)', () => {
    const text = JSON.stringify(doc, null, 2) + '\n';
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, text);
    assert.equal(text, readFileSync(GOLDEN, 'utf8'));
  });

  it('is served at /openapi.json and /docs only when enabled, and only to a signed-in user', async () => {
    const middleware = [authentication(services.auth, services.oauth), roleCheck()];
    const off = createApp({ routes, services, middleware, log: silentLogger });
    assert.equal((await off.request('/api/agent/openapi.json')).status, 404);
    assert.equal((await off.request('/docs')).status, 404);

    const on = createApp({ routes, rawEndpoints, services, middleware, log: silentLogger, apiDocs: { version: '0.0.0-test' } });
    assert.equal((await on.request('/api/agent/openapi.json')).status, 401);
    assert.equal((await on.request('/api/agent/docs')).status, 401);
    const signIn = await on.request('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'viewer', password: VIEWER_PASSWORD }) });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const served = await on.request('/api/agent/openapi.json', { headers: { cookie } });
    assert.equal(served.status, 200);
    assert.deepEqual(await served.json(), JSON.parse(JSON.stringify(doc)));
    const page = await on.request('/api/agent/docs', { headers: { cookie } });
    assert.match(await page.text(), /<code>\/namespaces<\/code>/);
  });
});

describe('OpenAPI operations from route input schemas', () => {
  const policy = { access: { auth: 'credential', role: 'admin', scope: 'apps:write' }, audit: 'write', rateLimit: 'write', feature: null } as const;
  const doc = openApiDocument(
    [
      defineRoute({
        ...policy, method: 'GET', path: '/history/:namespace', summary: 'h',
        input: v.object({ namespace: v.string(), window: v.optional(v.picklist(['1h', '6h']), '1h') }),
        output: v.object({}), handler: () => ok({}),
      }),
      defineRoute({
        ...policy, method: 'PUT', path: '/apps/:id', summary: 'a',
        input: v.object({ id: v.string(), name: v.string(), note: v.optional(v.string()) }),
        output: v.object({}), handler: () => ok({}),
      }),
    ],
    '0',
  );

  it('puts path parameters in the path and the rest of a GET input in the query', () => {
    const op = doc.paths['/history/{namespace}']?.get as { parameters: { name: string; in: string; required: boolean }[] };
    assert.deepEqual(op.parameters.map((p) => [p.name, p.in, p.required]), [['namespace', 'path', true], ['window', 'query', false]]);
  });

  it('puts the non-path input of a write into a JSON request body with its required fields', () => {
    const op = doc.paths['/apps/{id}']?.put as { parameters: unknown[]; requestBody: { content: { 'application/json': { schema: { required: string[]; properties: object } } } } };
    assert.equal(op.parameters.length, 1);
    const body = op.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(body.properties), ['name', 'note']);
    assert.deepEqual(body.required, ['name']);
  });
});

describe('OpenAPI answers from the request-shape declarations', () => {
  const doc = openApiDocument(routes, '0.0.0-test');
  type Op = { responses: Record<string, unknown>; requestBody?: { content: Record<string, unknown> }; 'x-capstan-body-limit-bytes'?: number };
  const op = (method: string, path: string) => doc.paths[path]?.[method] as Op;

  // One row per kind of route: what the runtime can answer before any handler runs.
  const cases: { name: string; method: string; path: string; want: string[]; notWant: string[] }[] = [
    { name: 'a JSON write refuses big, non-JSON and cross-site bodies', method: 'post', path: '/admin/users', want: ['403', '413', '415', '429'], notWant: [] },
    { name: 'a public sign-in is cross-site checked and rate limited too', method: 'post', path: '/auth/login', want: ['403', '413', '415', '429'], notWant: [] },
    { name: 'a read takes no body', method: 'get', path: '/namespaces', want: ['429'], notWant: ['413', '415'] },
    { name: 'a probe is unmetered and takes no body', method: 'get', path: '/healthz', want: [], notWant: ['413', '415', '429'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const responses = Object.keys(op(c.method, c.path).responses);
      for (const status of c.want) assert.ok(responses.includes(status), `${c.method} ${c.path} lacks ${status}`);
      for (const status of c.notWant) assert.ok(!responses.includes(status), `${c.method} ${c.path} claims ${status}`);
    });
  }

  it('declares the token endpoint form body (RFC 6749 §4.1.3) and every write body limit', () => {
    const token = op('post', '/oauth/token');
    assert.ok(token.requestBody?.content['application/x-www-form-urlencoded'], 'the token endpoint takes forms');
    assert.equal(op('post', '/admin/users')['x-capstan-body-limit-bytes'], 1024 * 1024);
  });
});
