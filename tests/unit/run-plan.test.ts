// The suite's plan (tests/support/run-plan.ts): tiers, what a file waits for, which file starts
// next, and the closing report's count line, which CI reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { needsOfFile, nextFile, report, sharesCluster, tierOf, type FileResult, type Need, type PlannedFile } from '../support/run-plan.ts';

describe('test run plan', () => {
  it('puts each file in its tier by folder', () => {
    const cases: Array<[string, string]> = [
      ['tests/unit/store.test.ts', 'unit'],
      ['tests/integration/read-core.test.ts', 'cluster'],
      ['tests/integration/sso-ldap.test.ts', 'cluster'],
      ['tests/e2e/dashboard.test.ts', 'browser'],
    ];
    for (const [file, tier] of cases) assert.equal(tierOf(file), tier, file);
  });

  it('derives what a file waits for from the support it reaches, through other support too', () => {
    const tree: Record<string, string> = {
      'tests/unit/a.test.ts': "import { testApp } from '../support/app.ts';",
      'tests/support/app.ts': "import { createApp } from '../../runtime/http/app.ts';",
      // Shipped code is not followed: it starts nothing by itself.
      'runtime/http/app.ts': "import { k } from '../../tests/support/cluster.ts';",
      'tests/integration/b.test.ts': "import {\n  k,\n  kJson,\n} from '../support/cluster.ts';",
      'tests/e2e/c.test.ts': "import { launch } from '../support/browser.ts';",
      'tests/support/browser.ts': "import { startTestAgent } from './cluster.ts';",
      'tests/integration/d.test.ts': "import { startSlapd } from '../support/slapd.ts';\nimport { startDex } from '../support/dex.ts';",
      'tests/integration/e.test.ts': "import { samlIdp } from '../support/samlidp.ts';\nimport { s } from '../support/simplesamlphp.ts';",
      'tests/integration/f.test.ts': "import { x } from '../support/trivy-fixture.ts';\nimport { y } from '../support/trivy-reports.ts';",
      'tests/unit/g.test.ts': "import { helmBinary } from '../../scripts/generate-install-rbac.ts';",
      // A comment or a string naming a helper is not an import of it.
      'tests/unit/h.test.ts': "// like tests/support/cluster.ts does\nconst cases = [\"import { k } from '../support/cluster.ts';\"];",
      'tests/unit/i.test.ts': "import { a } from './i.test.ts';",
    };
    const read = (path: string) => tree[path] ?? '';
    const cases: Array<[string, Need[]]> = [
      ['tests/unit/a.test.ts', []],
      ['tests/integration/b.test.ts', ['binaries', 'cluster']],
      ['tests/e2e/c.test.ts', ['binaries', 'chromium', 'cluster']],
      ['tests/integration/d.test.ts', ['dex', 'slapd']],
      ['tests/integration/e.test.ts', ['samlidp', 'simplesamlphp']],
      ['tests/integration/f.test.ts', ['trivy']],
      ['tests/unit/g.test.ts', ['binaries']],
      ['tests/unit/h.test.ts', []],
      // An import cycle ends.
      ['tests/unit/i.test.ts', []],
    ];
    for (const [file, needs] of cases) assert.deepEqual(needsOfFile(file, read), needs, file);
  });

  const file = (name: string, needs: Need[], expectedSecs: number, shares = false): PlannedFile => ({ file: name, tier: tierOf(name), needs, sharesCluster: shares, expectedSecs });
  const idle = { shared: 0, exclusive: 0 };
  it('starts the longest ready file, a cluster file to itself unless it shares, never one whose needs are not ready', () => {
    const pending = [file('tests/unit/a.test.ts', [], 3), file('tests/unit/b.test.ts', [], 9), file('tests/integration/c.test.ts', ['binaries', 'cluster'], 300), file('tests/integration/d.test.ts', ['dex'], 60)];
    assert.equal(nextFile(pending, new Set(), idle)?.file, 'tests/unit/b.test.ts');
    assert.equal(nextFile(pending, new Set(['dex']), idle)?.file, 'tests/integration/d.test.ts');
    assert.equal(nextFile(pending, new Set(['binaries', 'cluster', 'dex']), idle)?.file, 'tests/integration/c.test.ts');
    assert.equal(nextFile(pending, new Set(['binaries', 'cluster', 'dex']), { shared: 0, exclusive: 1 })?.file, 'tests/integration/d.test.ts');
    assert.equal(nextFile([pending[2] as PlannedFile], new Set(['binaries', 'cluster']), { shared: 0, exclusive: 1 }), undefined);
    // An exclusive file waits for the sharing ones; sharing files start beside each other only.
    const sharing = file('tests/integration/s.test.ts', ['binaries', 'cluster'], 100, true);
    assert.equal(nextFile([pending[2] as PlannedFile], new Set(['binaries', 'cluster']), { shared: 1, exclusive: 0 }), undefined);
    assert.equal(nextFile([sharing], new Set(['binaries', 'cluster']), { shared: 1, exclusive: 0 })?.file, 'tests/integration/s.test.ts');
    assert.equal(nextFile([sharing], new Set(['binaries', 'cluster']), { shared: 0, exclusive: 1 }), undefined);
    // Equal expectations start by name, so a run is reproducible.
    assert.equal(nextFile([file('tests/unit/z.test.ts', [], 0), file('tests/unit/m.test.ts', [], 0)], new Set(), idle)?.file, 'tests/unit/m.test.ts');
  });

  it('a file shares the control plane only by its own line saying so', () => {
    assert.equal(sharesCluster('// Some header\n// test-plan: shares-cluster\nimport x from "y";'), true);
    assert.equal(sharesCluster('// Some header\nimport x from "y";'), false);
    assert.equal(sharesCluster('const s = "// test-plan: shares-cluster";'), false);
  });

  it('closes with one count line, failures listed above it, slowest files first', () => {
    const results: FileResult[] = [
      { file: 'tests/unit/a.test.ts', tier: 'unit', secs: 2, passed: 10, failed: 0, skipped: 1, failures: [] },
      { file: 'tests/integration/b.test.ts', tier: 'cluster', secs: 90, passed: 4, failed: 1, skipped: 0, failures: ['tests/integration/b.test.ts :: it breaks :: boom'] },
    ];
    const text = report(results, { unit: 2, cluster: 90 }, { binaries: 30 }, 95);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.at(-1), 'tests: 14 passed, 1 failed, 1 skipped');
    assert.ok(lines.includes('# FAILED tests/integration/b.test.ts :: it breaks :: boom'));
    const slow = lines.findIndex((l) => l.includes('slowest'));
    assert.match(lines[slow + 1] ?? '', /b\.test\.ts/);
    assert.match(lines[slow + 2] ?? '', /a\.test\.ts/);
  });
});
