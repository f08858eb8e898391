// The route table's layout (issue 26): every capability folder under handlers/ declares its
// endpoints in its own routes.ts, and runtime/ declares none; runtime/routes.ts only lists them.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { routes } from '../../runtime/routes.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const sources = (dir: string) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

describe('route layout', () => {
  it('runtime/ declares no route: every declaration lives in a capability folder', () => {
    const declaring = sources('runtime').filter((f) => /\bdefineRoute\(/.test(readFileSync(join(ROOT, f), 'utf8')));
    // The schema document's own route is the runtime's (it describes the table itself).
    assert.deepEqual(declaring, ['runtime/http/app.ts']);
    assert.match(readFileSync(join(ROOT, 'runtime/http/app.ts'), 'utf8'), /const SCHEMA_ROUTE: Route = defineRoute\(/);
  });

  it('runtime/routes.ts only lists the capabilities\' arrays', () => {
    const table = readFileSync(join(ROOT, 'runtime/routes.ts'), 'utf8');
    assert.doesNotMatch(table, /defineRoute|method:|path:/);
    const body = /export const routes: readonly Route\[\] = \[([^\]]*)\];/.exec(table)?.[1] ?? '';
    const entries = body.split(',').map((s) => s.trim()).filter((s) => s !== '');
    assert.ok(entries.length > 10);
    for (const entry of entries) assert.match(entry, /^\.\.\.[a-z][A-Za-z]*Routes$/);
  });

  it('every capability folder that has handlers has its routes.ts, and every route comes from one', () => {
    const folders = readdirSync(join(ROOT, 'handlers'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    const withoutRoutes = folders.filter((d) => !existsSync(join(ROOT, 'handlers', d, 'routes.ts')));
    // ip-guard has no endpoint of its own (its admin surface is a setting: handlers/settings).
    assert.deepEqual(withoutRoutes, ['ip-guard']);
    // A path appears quoted in the routes.ts that declares it (some are mapped from a list).
    const declared = folders.filter((d) => !withoutRoutes.includes(d)).map((d) => readFileSync(join(ROOT, 'handlers', d, 'routes.ts'), 'utf8')).join('\n');
    for (const route of routes) assert.ok(declared.includes(`'${route.path}'`), `${route.method} ${route.path} is declared in no handlers/<capability>/routes.ts`);
  });
});
