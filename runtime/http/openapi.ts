// The OpenAPI document, generated from the route table and its valibot schemas: nothing
// about the API is written down twice. The dashboard's typed client is generated from it.
import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';
import { ErrorBody } from '../../schema/common.ts';
import type { Route } from '../../handlers/route.ts';
import { STATUS_OF } from './status.ts';
import { BROWSER_ERROR_PAGE, REASON_MAX_CHARS } from './browser-errors.ts';

type SchemaObject = JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] };

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> };
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };

function schemaOf(schema: Route['input'], typeMode: 'input' | 'output'): SchemaObject {
  // The document declares its dialect once (OpenAPI 3.1); per-schema `$schema` is noise.
  // trim only normalises what a client sends; it has no JSON Schema form and changes no type.
  const converted: SchemaObject = { ...toJsonSchema(schema, { target: 'draft-2020-12', typeMode, errorMode: 'throw', ignoreActions: ['trim', 'check'] }) };
  delete converted.$schema;
  return converted;
}

/** `/incidents/:namespace/:pod` → `/incidents/{namespace}/{pod}` */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function operationId(route: Route): string {
  const words = route.path.split('/').filter((s) => s !== '').map((s) => s.replace(/^:/, 'by_').replace(/[^A-Za-z0-9]+/g, '_'));
  return [route.method.toLowerCase(), ...words].join('_');
}

/** Whether the runtime reads a body for this route (the methods readInput takes one for). */
function takesBody(route: Route): boolean {
  return route.method !== 'GET' && route.method !== 'DELETE';
}

/** The media types a route's declared body formats are read as. */
const MEDIA_TYPE: Readonly<Record<Route['bodyFormats'][number], string>> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

function errorResponses(route: Route, hasInput: boolean): Record<string, unknown> {
  const statuses = new Set<number>();
  if (hasInput || route.method !== 'GET') statuses.add(STATUS_OF.invalid_input);
  if (route.access.auth === 'credential') {
    statuses.add(STATUS_OF.unauthenticated);
    statuses.add(STATUS_OF.forbidden);
  }
  if (route.path.includes(':')) statuses.add(STATUS_OF.not_found);
  if (route.path === '/readyz') statuses.add(STATUS_OF.not_ready);
  if (route.path === '/oauth/register') statuses.add(STATUS_OF.registration_full);
  // What the request-shape stage answers before any handler (runtime/http/middleware/request-shape.ts).
  if (takesBody(route)) {
    statuses.add(STATUS_OF.payload_too_large);
    statuses.add(STATUS_OF.unsupported_media_type);
    if (route.crossOrigin === 'refuse') statuses.add(STATUS_OF.cross_site_request);
  }
  // Per-class limits, and the anonymous allowance before authentication; probes are unmetered.
  if (!route.probe) statuses.add(STATUS_OF.rate_limited);
  const out: Record<string, unknown> = {};
  for (const status of [...statuses].sort()) {
    out[String(status)] = { description: 'Error', content: { 'application/json': { schema: ERROR_REF } } };
  }
  return out;
}

function operation(route: Route): Record<string, unknown> {
  const input = schemaOf(route.input, 'input');
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const pathParams = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? '');
  const inQuery = route.method === 'GET' || route.method === 'DELETE';
  const parameters = Object.entries(properties)
    .filter(([name]) => pathParams.includes(name) || inQuery)
    .map(([name, schema]) => ({
      name,
      in: pathParams.includes(name) ? 'path' : 'query',
      required: pathParams.includes(name) || required.has(name),
      schema,
    }));
  const bodyFields = Object.entries(properties).filter(([name]) => !pathParams.includes(name) && !inQuery);
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: route.summary,
    security: route.access.auth === 'public' ? [] : undefined,
    'x-capstan-access': route.access,
    'x-capstan-audit': route.audit,
    // Probes are unmetered; the document names them as their own class.
    'x-capstan-rate-limit': route.probe ? 'probe' : route.rateLimit,
    'x-capstan-feature': route.feature,
    // A streamed route's own caps on open streams (beside the caps every stream shares).
    ...(route.stream?.caps ? { 'x-capstan-stream-caps': { per_user: route.stream.caps.perUser, total: route.stream.caps.total } } : {}),
    responses: {
      '200': {
        description: 'OK',
        content: {
          'application/json': { schema: schemaOf(route.output, 'output') },
          // One event per SSE message; its `type` is also the message's `event:` name.
          ...(route.stream === null ? {} : { 'text/event-stream': { schema: schemaOf(route.stream.event, 'output') } }),
          // A file in another format (an export): its bytes, named by Content-Disposition.
          ...Object.fromEntries(route.files.map((mediaType) => [mediaType, { schema: { type: 'string' } }])),
        },
        ...(route.files.length === 0 ? {} : { headers: { 'Content-Disposition': { description: 'attachment; filename="..."', schema: { type: 'string' } } } }),
      },
      ...errorResponses(route, Object.keys(properties).length > 0),
      // A browser flow's refusal, for a top-level navigation only (runtime/http/browser-errors.ts).
      ...(route.browserErrors === null
        ? {}
        : {
            '303': {
              description: `A refusal of a top-level browser navigation (Sec-Fetch-Dest: document; without it Sec-Fetch-Mode: navigate; without either Accept preferring text/html): redirected to ${BROWSER_ERROR_PAGE[route.browserErrors]}?sso_error=<error code>&reason=<message, at most ${REASON_MAX_CHARS} characters> instead of the JSON error, which every other client gets`,
              headers: { Location: { schema: { type: 'string' } } },
            },
          }),
    },
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (bodyFields.length > 0) {
    op.requestBody = {
      required: bodyFields.some(([name]) => required.has(name)),
      content: Object.fromEntries(
        route.bodyFormats.map((format) => [
          MEDIA_TYPE[format],
          { schema: { type: 'object', properties: Object.fromEntries(bodyFields), required: bodyFields.map(([n]) => n).filter((n) => required.has(n)) } },
        ]),
      ),
    };
  }
  if (takesBody(route)) op['x-capstan-body-limit-bytes'] = route.bodyLimitBytes;
  if (op.security === undefined) delete op.security;
  return op;
}

export function openApiDocument(routes: readonly Route[], version: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Capstan agent API',
      version,
      description: 'Every path is served at /<path> inside the cluster and at /api/agent/<path> through the dashboard.',
    },
    servers: [
      { url: '/api/agent', description: 'through the dashboard' },
      { url: '/', description: 'the agent Service, in-cluster' },
    ],
    paths,
    components: { schemas: { Error: schemaOf(ErrorBody, 'output') } },
  };
}

/** A self-contained reference page (no CDN: clusters are often offline). */
export function apiDocsPage(doc: OpenApiDocument): string {
  const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
  const rows = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const o = op as { summary?: string; 'x-capstan-access'?: { auth: string; role?: string; scope?: string | null } };
      const access = o['x-capstan-access'];
      const who = access?.auth === 'public' ? 'public' : `${access?.role ?? ''}${access?.scope ? `, key scope ${access.scope}` : ', no API key'}`;
      return `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escape(path)}</code></td><td>${escape(o.summary ?? '')}</td><td>${escape(who)}</td></tr>`;
    }),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.4rem .8rem;text-align:left}</style>
</head><body><h1>${escape(doc.info.title)} ${escape(doc.info.version)}</h1><p>${escape(doc.info.description)} Machine-readable: <a href="openapi.json">openapi.json</a>.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Who</th></tr></thead><tbody>${rows.join('')}</tbody></table></body></html>`;
}
