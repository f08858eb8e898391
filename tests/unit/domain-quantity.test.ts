// Kubernetes resource quantities (domain/resources/quantity.ts), row by row, against the
// grammar of k8s.io/apimachinery's resource.Quantity:
//   <signedNumber><suffix>, suffix one of binarySI (Ki Mi Gi Ti Pi Ei), decimalSI
//   (n u m "" k M G T P E) or a decimal exponent (e/E and a signed integer), never two.
// Plus the kubectl-style short age (domain/resources/age.ts) at each unit boundary.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shortAge } from '../../domain/resources/age.ts';
import { bytes, millicores, parseQuantity } from '../../domain/resources/quantity.ts';
import { ManualClock } from '../support/services.ts';

describe('parseQuantity', () => {
  const rows: { input: string | undefined; want: number | null }[] = [
    // Plain numbers and decimals.
    { input: '0', want: 0 },
    { input: '1', want: 1 },
    { input: '1.5', want: 1.5 },
    { input: '.5', want: 0.5 },
    { input: '5.', want: 5 },
    { input: '+2', want: 2 },
    { input: '-2', want: -2 },
    { input: '007', want: 7 },
    // Every decimal SI suffix.
    { input: '5n', want: 5e-9 },
    { input: '5u', want: 5e-6 },
    { input: '250m', want: 0.25 },
    { input: '1.5m', want: 0.0015 },
    { input: '2k', want: 2e3 },
    { input: '2M', want: 2e6 },
    { input: '2G', want: 2e9 },
    { input: '2T', want: 2e12 },
    { input: '2P', want: 2e15 },
    { input: '2E', want: 2e18 },
    // Every binary SI suffix.
    { input: '1Ki', want: 1024 },
    { input: '1Mi', want: 1024 ** 2 },
    { input: '1Gi', want: 1024 ** 3 },
    { input: '1Ti', want: 1024 ** 4 },
    { input: '1Pi', want: 1024 ** 5 },
    { input: '1Ei', want: 1024 ** 6 },
    { input: '1.5Gi', want: 1.5 * 1024 ** 3 },
    { input: '.5Ki', want: 512 },
    // Decimal exponents: e or E and a signed integer.
    { input: '1e3', want: 1000 },
    { input: '1E3', want: 1000 },
    { input: '1e+3', want: 1000 },
    { input: '15e-1', want: 1.5 },
    { input: '1.5e2', want: 150 },
    { input: '1e0', want: 1 },
    // Surrounding blanks are forgiven (never produced by the API server).
    { input: ' 1Gi ', want: 1024 ** 3 },
    // Not quantities.
    { input: undefined, want: null },
    { input: '', want: null },
    { input: ' ', want: null },
    { input: 'abc', want: null },
    { input: 'Gi', want: null },
    { input: 'm', want: null },
    { input: '.', want: null },
    { input: '-', want: null },
    { input: '1.2.3', want: null },
    { input: '1 Gi', want: null },
    { input: '1gi', want: null },
    { input: '1GiB', want: null },
    { input: '1KI', want: null },
    { input: '1mi', want: null },
    { input: '1x', want: null },
    { input: '1e', want: null },
    { input: '1e1.5', want: null },
    { input: '1e+', want: null },
    { input: '0x10', want: null },
    { input: '1,5', want: null },
    { input: 'Infinity', want: null },
    { input: 'NaN', want: null },
    // Kubernetes has no upper-case K (kilo is k), and an exponent is a suffix of its own: it
    // does not combine with another.
    { input: '1K', want: null },
    { input: '1e3Mi', want: null },
    { input: '1e3k', want: null },
    // Too large to be a number: unparseable, never Infinity in a sum.
    { input: '1e400', want: null },
    { input: '1e308k', want: null },
  ];
  for (const { input, want } of rows) {
    it(`${JSON.stringify(input)} → ${want}`, () => {
      const got = parseQuantity(input);
      if (want === null || want === 0) assert.equal(got, want);
      else assert.ok(got !== null && Math.abs(got - want) <= Math.abs(want) * 1e-12, `got ${got}`);
    });
  }
});

describe('millicores and bytes', () => {
  const rows: { name: string; got: () => number | null; want: number | null }[] = [
    { name: 'cores to millicores', got: () => millicores('2'), want: 2000 },
    { name: 'millicores stay millicores', got: () => millicores('250m'), want: 250 },
    { name: 'fractional cores', got: () => millicores('0.1'), want: 100 },
    { name: 'sub-millicore rounds to the nearest', got: () => millicores('1500u'), want: 2 },
    { name: 'an unset CPU is null, not 0', got: () => millicores(undefined), want: null },
    { name: 'an invalid CPU is null', got: () => millicores('lots'), want: null },
    { name: 'binary bytes', got: () => bytes('128Mi'), want: 128 * 1024 * 1024 },
    { name: 'decimal bytes', got: () => bytes('1G'), want: 1e9 },
    { name: 'fractional bytes round', got: () => bytes('1500m'), want: 2 },
    { name: 'an unset memory is null', got: () => bytes(undefined), want: null },
  ];
  for (const row of rows) it(row.name, () => assert.equal(row.got(), row.want));
});

describe('shortAge', () => {
  const T0 = new Date('2026-11-21T12:00:00Z');
  const rows: { after: number; want: string }[] = [
    { after: 0, want: '0s' },
    { after: 119, want: '119s' },
    { after: 120, want: '2m' },
    { after: 2 * 3600 - 1, want: '119m' },
    { after: 2 * 3600, want: '2h' },
    { after: 2 * 86400 - 1, want: '47h' },
    { after: 2 * 86400, want: '2d' },
    { after: 400 * 86400, want: '400d' },
  ];
  for (const { after, want } of rows) {
    it(`${after} s → ${want}`, () => {
      const clock = new ManualClock(T0);
      clock.advance(after * 1000);
      assert.equal(shortAge(T0.toISOString(), clock.now()), want);
    });
  }
  it('a creation time in the future (clock skew) is 0s', () => assert.equal(shortAge('2026-11-21T12:00:10Z', T0), '0s'));
  it('no creation time is unknown', () => assert.equal(shortAge(null, T0), 'unknown'));
});
