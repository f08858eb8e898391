// The scan mode rule (domain/security/scan-mode.ts), row by row: the chart's mode, the runtime
// scanner_source, whether trivy-operator's CRDs are served, the license and expert mode give
// the source a scan uses, whether a self-scan may run, and whether POST /security/scan refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operatorReportsCount, resolveScanMode, scanRefusal, SELF_SCAN_HARD_DISABLED, SELF_SCAN_NO_EXPERT_MODE, SELF_SCAN_NOT_LICENSED, type ScanModeInputs } from '../../domain/security/scan-mode.ts';
import type { ScanMode, ScanSource } from '../../schema/security-scan.ts';

type Self = 'ok' | 402 | 403;
interface Row {
  mode: ScanMode;
  override: ScanMode | null;
  crds: boolean;
  licensed: boolean;
  expert: boolean;
  /** The mode in force, the source, the self-scan verdict, and POST's refusal (null: it runs). */
  want: [ScanMode, ScanSource, Self, 402 | 403 | null];
  reason?: string;
}

const rows: Row[] = [
  // auto: the operator's reports when served, else a self-scan if allowed, else the built-in checks; never refused.
  { mode: 'auto', override: null, crds: true, licensed: false, expert: false, want: ['auto', 'operator', 402, null], reason: SELF_SCAN_NOT_LICENSED },
  { mode: 'auto', override: null, crds: false, licensed: false, expert: false, want: ['auto', 'none', 402, null] },
  { mode: 'auto', override: null, crds: false, licensed: true, expert: false, want: ['auto', 'none', 403, null], reason: SELF_SCAN_NO_EXPERT_MODE },
  { mode: 'auto', override: null, crds: false, licensed: true, expert: true, want: ['auto', 'self', 'ok', null] },
  { mode: 'auto', override: null, crds: true, licensed: true, expert: true, want: ['auto', 'operator', 'ok', null] },
  // operator: reports or nothing; self-scan hard-disabled, whatever the license, expert mode or override says.
  { mode: 'operator', override: null, crds: true, licensed: true, expert: true, want: ['operator', 'operator', 403, null], reason: SELF_SCAN_HARD_DISABLED },
  { mode: 'operator', override: null, crds: false, licensed: false, expert: false, want: ['operator', 'none', 403, null], reason: SELF_SCAN_HARD_DISABLED },
  { mode: 'operator', override: 'self', crds: false, licensed: true, expert: true, want: ['self', 'none', 403, 403], reason: SELF_SCAN_HARD_DISABLED },
  { mode: 'operator', override: 'auto', crds: false, licensed: true, expert: true, want: ['auto', 'none', 403, null] },
  // self: refused unless every condition holds; the license is named before expert mode.
  { mode: 'self', override: null, crds: true, licensed: false, expert: false, want: ['self', 'none', 402, 402], reason: SELF_SCAN_NOT_LICENSED },
  { mode: 'self', override: null, crds: false, licensed: false, expert: true, want: ['self', 'none', 402, 402] },
  { mode: 'self', override: null, crds: false, licensed: true, expert: false, want: ['self', 'none', 403, 403], reason: SELF_SCAN_NO_EXPERT_MODE },
  { mode: 'self', override: null, crds: true, licensed: true, expert: true, want: ['self', 'self', 'ok', null] },
  // scanner_source wins over the chart's mode.
  { mode: 'self', override: 'operator', crds: true, licensed: false, expert: false, want: ['operator', 'operator', 402, null] },
  { mode: 'self', override: 'operator', crds: false, licensed: false, expert: false, want: ['operator', 'none', 402, null] },
  { mode: 'auto', override: 'self', crds: true, licensed: false, expert: false, want: ['self', 'none', 402, 402] },
  { mode: 'auto', override: 'operator', crds: true, licensed: true, expert: true, want: ['operator', 'operator', 'ok', null] },
];

describe('resolveScanMode', () => {
  for (const r of rows) {
    const inputs: ScanModeInputs = { mode: r.mode, scannerSource: r.override, operatorCrdsServed: r.crds, licensed: r.licensed, expertMode: r.expert };
    it(`${JSON.stringify(inputs)} -> ${JSON.stringify(r.want)}`, () => {
      const got = resolveScanMode(inputs);
      const [mode, source, self, refusal] = r.want;
      assert.equal(got.mode, mode);
      assert.equal(got.source, source);
      assert.equal(got.selfScan.allowed ? 'ok' : got.selfScan.status, self);
      if (r.reason !== undefined) assert.equal(got.selfScan.allowed ? null : got.selfScan.reason, r.reason);
      const refused = scanRefusal(got);
      assert.equal(refused?.status ?? null, refusal);
      if (refused && !got.selfScan.allowed) assert.equal(refused.reason, got.selfScan.reason);
    });
  }

  it('never picks a self-scan source unless the self-scan is allowed', () => {
    for (const mode of ['auto', 'operator', 'self'] as const)
      for (const override of [null, 'auto', 'operator', 'self'] as const)
        for (const crds of [true, false])
          for (const licensed of [true, false])
            for (const expert of [true, false]) {
              const got = resolveScanMode({ mode, scannerSource: override, operatorCrdsServed: crds, licensed, expertMode: expert });
              if (got.source === 'self') assert.ok(got.selfScan.allowed && mode !== 'operator');
            }
  });
});

describe('operatorReportsCount', () => {
  const rows: [ScanMode, ScanMode | null, boolean][] = [
    ['auto', null, true],
    ['operator', null, true],
    ['self', null, false],
    ['self', 'auto', true],
    ['self', 'operator', true],
    ['auto', 'self', false],
    ['operator', 'self', false],
  ];
  for (const [mode, override, counts] of rows) it(`${mode} with scanner_source ${String(override)}: ${counts ? 'counted' : 'not counted'}`, () => assert.equal(operatorReportsCount({ mode, scannerSource: override }), counts));
});
