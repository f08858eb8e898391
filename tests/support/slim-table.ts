// Shared by the slimmer tables (tests/unit/slim-diagnosis-*.test.ts): API objects written as
// the API server returns them, and one table runner.
import assert from 'node:assert/strict';
import { it } from 'node:test';

export const T = '2026-11-21T12:00:00Z';
export const GI = 1024 ** 3;

/** What every API object carries and no slimmer may keep. */
export function meta(name: string, namespace: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    ...(namespace === null ? {} : { namespace }),
    uid: '6f1c2f4e-9a1b-4c55-8d0e-2b7c1f0a9e11',
    resourceVersion: '48213',
    generation: 3,
    creationTimestamp: T,
    managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: T, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }],
    ...extra,
  };
}

export interface Case {
  name: string;
  raw: unknown;
  /** The whole slimmed object, or null when the slimmer must drop the object. */
  want?: unknown;
  /** Only these fields (a boundary row). */
  fields?: Record<string, unknown>;
}

export function runTable(slim: (raw: unknown) => unknown, cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const got = slim(c.raw);
      if (c.want !== undefined) assert.deepEqual(got, c.want);
      if (c.fields !== undefined) {
        assert.ok(got !== null && typeof got === 'object', `dropped: ${JSON.stringify(got)}`);
        const picked = Object.fromEntries(Object.keys(c.fields).map((k) => [k, (got as Record<string, unknown>)[k]]));
        assert.deepEqual(picked, c.fields);
      }
    });
  }
}
