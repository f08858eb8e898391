// An SRE report's health and trend sections at their boundaries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { healthSection, trendSection, type UsageSample } from '../../domain/copilot/report.ts';
import type { NamespaceHealth } from '../../schema/overview.ts';

const ns = (namespace: string, health_score: NamespaceHealth['health_score'], reasons: string[] = []): NamespaceHealth =>
  ({ namespace, health_score, reasons }) as unknown as NamespaceHealth;
const pts = (cpu: (number | null)[], mem: (number | null)[] = cpu.map(() => null)): UsageSample[] => cpu.map((c, i) => ({ cpuM: c, memBytes: mem[i] ?? null }));

describe('report sections', () => {
  it('health counts every verdict and cites each unhealthy namespace, ten at most', () => {
    const text = healthSection([ns('shop', 'critical', ['2 pods crash-looping', 'a', 'b']), ns('blog', 'healthy'), ns('lab', 'degraded')]);
    assert.match(text, /3 namespaces: 1 critical, 1 degraded, 0 unknown, 1 healthy/);
    assert.match(text, /\[namespace:shop\] critical: 2 pods crash-looping; a$/m);
    assert.match(text, /\[namespace:lab\] degraded: no reason given/);
    assert.ok(!text.includes('[namespace:blog]'));
    const many = healthSection(Array.from({ length: 12 }, (_, i) => ns(`n${i}`, 'critical')));
    assert.equal((many.match(/\[namespace:/g) ?? []).length, 10);
    assert.match(many, /and 2 more unhealthy namespaces/);
  });

  const trends: [string, UsageSample[], RegExp][] = [
    ['no samples', [], /Not enough resource history/],
    ['one sample is no trend', pts([500]), /Not enough resource history/],
    ['gaps are skipped', pts([null, 1000, null, 2000]), /CPU in use: 1.00 cores → 2.00 cores \(\+100 %\)/],
    ['a fall', pts([2000, 2000, 1000, 1000]), /2.00 cores → 1.00 cores \(−50 %\)/],
    ['flat at zero', pts([0, 0]), /\(flat\)/],
    ['up from zero', pts([0, 0, 0, 500]), /\(up from zero\)/],
    ['a spike in the middle is not a trend', pts([1000, 1000, 1000, 1000, 9000, 1000, 1000, 1000]), /1.00 cores → 1.00 cores \(\+0 %\)/],
    ['memory in GiB', pts([null, null], [2 ** 30, 2 ** 31]), /Memory in use: 1.00 GiB → 2.00 GiB \(\+100 %\)/],
  ];
  for (const [name, points, expected] of trends) it(`trend: ${name}`, () => assert.match(trendSection(points, 24), expected));
});
