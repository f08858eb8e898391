// docs/install.md's "What each RBAC value grants" is generated from what the chart renders
// (scripts/generate-install-rbac.ts): this fails when the chart's RBAC changed and the doc did not.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { helmBinary, INSTALL_DOC, variantSection, withRbacSection } from '../../scripts/generate-install-rbac.ts';

describe('docs/install.md RBAC grants', () => {
  it('match what the chart renders (run `npm run generate:install-rbac` after an RBAC change)', async () => {
    const helm = await helmBinary();
    assert.ok(existsSync(helm), `no helm at ${helm}: make deps builds it`);
    const doc = readFileSync(INSTALL_DOC, 'utf8');
    assert.equal(doc, withRbacSection(doc, helm));
  });

  it('shows a variant as what it adds and what it takes away from the defaults', () => {
    const a = '| ClusterRole `r` | core: pods | get |';
    const b = '| ClusterRole `r` | core: secrets | get |';
    const c = '| Role `w` in `x` | core: pods | create |';
    assert.match(variantSection('same', [a, b], [b, a]), /The same grants as the defaults\./);
    const changed = variantSection('changed', [a, b], [a, c]);
    assert.match(changed, /Adds:\n\n\| granted by[^\n]*\n[^\n]*\n\| Role `w` in `x` \| core: pods \| create \|\n/);
    assert.match(changed, /Takes away:\n\n\| granted by[^\n]*\n[^\n]*\n\| ClusterRole `r` \| core: secrets \| get \|\n/);
    assert.doesNotMatch(changed, /core: pods \| get/, 'unchanged rows are not repeated');
  });
});
