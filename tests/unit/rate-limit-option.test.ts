// CAPSTAN_RATE_LIMITS: the startup option a load test or a busy automation account uses to
// raise its allowance, so nobody edits code to benchmark (issue 13).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRateLimits } from '../../runtime/cli/env-options.ts';
import { DEFAULT_RATE_LIMITS } from '../../runtime/http/middleware/rate-limit.ts';

test('parseRateLimits: named classes change, the rest keep their defaults', () => {
  const cases: { value: string | undefined; want: Partial<Record<keyof typeof DEFAULT_RATE_LIMITS, number>> }[] = [
    { value: undefined, want: {} },
    { value: '', want: {} },
    { value: 'read=100000', want: { read: 100000 } },
    { value: ' read = 6000 , write=300 ', want: { read: 6000, write: 300 } },
    { value: 'ai=1,discovery=1,login=1', want: { ai: 1, discovery: 1, login: 1 } },
  ];
  for (const { value, want } of cases) {
    assert.deepEqual(parseRateLimits(value), { ...DEFAULT_RATE_LIMITS, ...want }, String(value));
  }
});

test('parseRateLimits: an unusable value names the variable and the entry', () => {
  const cases: { value: string; error: RegExp }[] = [
    { value: 'read', error: /CAPSTAN_RATE_LIMITS: "read" is not class=perMinute/ },
    { value: 'reads=10', error: /"reads" is not a rate-limit class \(read, write, login, ai, discovery, register\)/ },
    { value: 'read=0', error: /read must be a whole number of requests a minute, at least 1, got "0"/ },
    { value: 'read=1.5', error: /got "1.5"/ },
    { value: 'read=-3', error: /got "-3"/ },
    { value: 'read=ten', error: /got "ten"/ },
    { value: 'read=10,read=20', error: /"read" is given twice/ },
  ];
  for (const { value, error } of cases) assert.throws(() => parseRateLimits(value), error, value);
});
