// security.scanning.* as the chart hands it to the agent (CAPSTAN_SCANNING_* in
// chart/templates/agent-configmap.yaml): the spec's defaults when unset, and a startup error
// naming the variable for anything unusable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentOptionsFromEnv, parseScanning } from '../../runtime/cli/env-options.ts';

describe('CAPSTAN_SCANNING_*', () => {
  it('defaults to enabled, auto, 90 days (spec §1)', () => {
    assert.deepEqual(parseScanning({}), { enabled: true, mode: 'auto', retentionDays: 90 });
    assert.deepEqual(agentOptionsFromEnv({}).scanning, { enabled: true, mode: 'auto', retentionDays: 90 });
  });

  it('reads what the chart renders', () => {
    assert.deepEqual(parseScanning({ CAPSTAN_SCANNING_ENABLED: 'false', CAPSTAN_SCANNING_MODE: 'operator', CAPSTAN_SCANNING_RETENTION_DAYS: '30' }), { enabled: false, mode: 'operator', retentionDays: 30 });
    assert.equal(parseScanning({ CAPSTAN_SCANNING_MODE: 'self' }).mode, 'self');
  });

  const refused: [Record<string, string>, RegExp][] = [
    [{ CAPSTAN_SCANNING_ENABLED: 'yes' }, /CAPSTAN_SCANNING_ENABLED must be true or false/],
    [{ CAPSTAN_SCANNING_MODE: 'trivy' }, /CAPSTAN_SCANNING_MODE must be auto, operator or self/],
    [{ CAPSTAN_SCANNING_MODE: 'Auto' }, /CAPSTAN_SCANNING_MODE/],
    [{ CAPSTAN_SCANNING_RETENTION_DAYS: '0' }, /CAPSTAN_SCANNING_RETENTION_DAYS must be at least 1/],
    [{ CAPSTAN_SCANNING_RETENTION_DAYS: '1.5' }, /CAPSTAN_SCANNING_RETENTION_DAYS must be a whole number/],
    [{ CAPSTAN_SCANNING_RETENTION_DAYS: '3651' }, /CAPSTAN_SCANNING_RETENTION_DAYS must be at most 3650/],
  ];
  for (const [env, message] of refused) it(`refuses ${JSON.stringify(env)}`, () => assert.throws(() => parseScanning(env), message));
});
