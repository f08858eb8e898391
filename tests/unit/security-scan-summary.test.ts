// A stored run's numbers re-added per caller (domain/security/scan-summary.ts): each row is
// a visibility and namespace filter over the same stored counts, with the score and grade
// worked out by hand from Polaris' formula, ⌊200P / (2P + W + 2D)⌋.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namespaceCounts, summarize } from '../../domain/security/scan-summary.ts';
import { podSecuritySpec } from '../../domain/security/pod-spec.ts';
import { evaluate } from '../../domain/security/posture.ts';
import type { NamespaceScanCounts } from '../../schema/security-scan.ts';
import { zeroCounts } from '../../schema/security.ts';

const ns = (namespace: string, passed: number, warnings: number, dangers: number, extra: Partial<NamespaceScanCounts> = {}): NamespaceScanCounts => ({
  namespace,
  checks: { passed, warnings, dangers },
  by_severity: { ...zeroCounts(), MEDIUM: warnings, HIGH: dangers },
  workloads: 1,
  misconfigs: warnings + dangers,
  vulns: 0,
  ...extra,
});
const counts = [ns('shop', 10, 3, 1), ns('blog', 0, 3, 3), ns('edge', 0, 0, 0, { workloads: 0, vulns: 4 })];

const rows: { name: string; visible: string[]; namespace: string | null; want: { score: number; grade: string; misconfigs: number; vulns: number; workloads: number } }[] = [
  // 2·10 / (20 + 6 + 8) = 20/34 → ⌊58.8⌋ = 58, F.
  { name: 'everything visible', visible: ['shop', 'blog', 'edge'], namespace: null, want: { score: 58, grade: 'F', misconfigs: 10, vulns: 4, workloads: 2 } },
  // blog hidden: shop alone, 200·10 / (20 + 3 + 2) = 80, B- (Polaris' own example).
  { name: 'blog hidden', visible: ['shop', 'edge'], namespace: null, want: { score: 80, grade: 'B-', misconfigs: 4, vulns: 4, workloads: 1 } },
  { name: 'one namespace', visible: ['shop', 'blog', 'edge'], namespace: 'blog', want: { score: 0, grade: 'F', misconfigs: 6, vulns: 0, workloads: 1 } },
  { name: 'a hidden namespace asked for counts nothing', visible: ['shop'], namespace: 'blog', want: { score: 100, grade: 'A+', misconfigs: 0, vulns: 0, workloads: 0 } },
  { name: 'nothing visible scores 100', visible: [], namespace: null, want: { score: 100, grade: 'A+', misconfigs: 0, vulns: 0, workloads: 0 } },
];

describe('summarize', () => {
  for (const r of rows) {
    it(r.name, () => {
      const s = summarize(counts, (n) => r.visible.includes(n), r.namespace);
      assert.deepEqual({ score: s.score, grade: s.grade, misconfigs: s.misconfigs, vulns: s.vulns, workloads: s.workloads_covered }, r.want);
    });
  }

  it("equals evaluate()'s own posture over every namespace, and a namespace's posture alone", () => {
    const bad = podSecuritySpec({ hostNetwork: true, containers: [{ name: 'web', image: 'nginx:latest', securityContext: { privileged: true } }] });
    const ok = podSecuritySpec({ containers: [{ name: 'api', image: 'ghcr.io/acme/api:1.2', resources: { requests: { cpu: '1', memory: '1Gi' } } }] });
    const e = evaluate([
      { kind: 'Deployment', namespace: 'a', name: 'x', spec: bad },
      { kind: 'Deployment', namespace: 'b', name: 'y', spec: ok },
      { kind: 'DaemonSet', namespace: 'b', name: 'z', spec: bad },
    ]);
    const c = namespaceCounts(e, []);
    const all = summarize(c, () => true);
    assert.deepEqual([all.score, all.grade, all.by_severity, all.checks, all.misconfigs], [e.posture.score, e.posture.grade, e.posture.by_severity, e.posture.checks, e.findings.length]);
    for (const p of e.posture.namespaces) {
      const one = summarize(c, () => true, p.namespace);
      assert.deepEqual([one.score, one.grade, one.checks, one.workloads_covered], [p.score, p.grade, p.checks, p.workloads_covered]);
    }
  });
});
