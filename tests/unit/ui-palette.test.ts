// The command palette's matching (ui/web/src/components/palette-items.ts): k9s-style kind
// commands, and screens, namespaces and found objects for any other text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kindCommands, paletteItems } from '../../ui/web/src/components/palette-items.ts';

const SCREENS = [
  { label: 'Overview', href: '/overview' },
  { label: 'Incidents', href: '/incidents' },
  { label: 'Resources', href: '/resources/deployments' },
];

describe('kindCommands', () => {
  const rows: [string, string[]][] = [
    ['deploy', ['/resources/deployments']],
    ['po', ['/resources/pods']],
    ['ns', ['/namespaces']],
    ['no', ['/resources/nodes']],
    ['svc', ['/resources/services']],
    ['pe', ['/resources/persistentvolumeclaims', '/resources/persistentvolumes']],
    ['DS', ['/resources/daemonsets']],
    ['crd', ['/custom-resources']],
    ['cu', ['/custom-resources']],
    ['c', ['/resources/cronjobs', '/resources/configmaps', '/custom-resources']],
    ['zz', []],
  ];
  for (const [word, want] of rows) it(`:${word}`, () => assert.deepEqual(kindCommands(word).map((i) => i.href), want));
});

describe('paletteItems', () => {
  it('offers every screen before anything is typed', () => {
    assert.deepEqual(paletteItems('', SCREENS, ['shop'], []).map((i) => i.href), ['/overview', '/incidents', '/resources/deployments']);
  });

  it('matches screens and namespaces by substring, then the objects the agent found', () => {
    const found = [{ id: 'pod:shop/checkout-1', label: 'shop/checkout-1', group: 'Pod', href: '/namespaces/shop/pods/checkout-1' }];
    const items = paletteItems('SHO', SCREENS, ['shop', 'payments'], found);
    assert.deepEqual(items.map((i) => [i.group, i.label]), [['Namespace', 'shop'], ['Pod', 'shop/checkout-1']]);
  });

  it('a leading colon is a kind command only', () => {
    assert.deepEqual(paletteItems(':deploy', SCREENS, ['deploy-ns'], []).map((i) => i.label), ['Deployments']);
  });
});
