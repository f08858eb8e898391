// Logs the shared test cluster's KWOK serves to test-owned namespaces (beside the demo
// scenario's and the diagnosis scenarios'), and a way to write a new line into one, as a
// running container would: KWOK follows its log files, so a follow sees the line arrive.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logFilePrefix, toCriLog, type LogGroup } from '../../dev/localcluster/kwok-config.ts';

/** tests/integration/logs.test.ts: a `writer` container whose log a follow watches grow. */
export const LOGS_NAMESPACE = 'it-logs';
const FOLLOWED: LogGroup = {
  namespaces: [LOGS_NAMESPACE],
  logs: [
    {
      containers: ['writer'],
      current: 'writer starting\nconnecting with password=hunter2-not-shown\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7xq\n-----END RSA PRIVATE KEY-----\nwriter ready\n',
      previous: 'writer starting\nwriter crashed: token=sk_live_51Hx9fakeTokenPrev\n',
    },
  ],
};

/**
 * tests/integration/self-scan.test.ts: the expert pod's scan Jobs run here, and their `trivy`
 * container's log is what the test wrote after running the pod's program (writeScanLog);
 * KWOK's stages hold these Job pods until the test says they are done.
 */
export const SELF_SCAN_NAMESPACE = 'it-self-scan';
const SCANNED: LogGroup = { namespaces: [SELF_SCAN_NAMESPACE], logs: [{ containers: ['trivy'], current: 'no scan yet\n' }] };

export const TEST_CLUSTER_LOGS: readonly LogGroup[] = [FOLLOWED, SCANNED];

/** Replaces the log KWOK serves for the scan Jobs' `trivy` container with `text`. */
export function writeScanLog(clusterDir: string, text: string): void {
  writeFileSync(join(clusterDir, 'container-logs', `${logFilePrefix(SCANNED)}-0-current.log`), toCriLog(text, new Date()));
}

/** Appends `line` to the current log of the `writer` containers of LOGS_NAMESPACE (the cluster's directory: CAPSTAN_TEST_CLUSTER_DIR). */
export function appendWriterLine(clusterDir: string, line: string): void {
  appendFileSync(join(clusterDir, 'container-logs', `${logFilePrefix(FOLLOWED)}-0-current.log`), toCriLog(line, new Date()));
}

/**
 * Appends `line` to the current log of the demo's checkout containers (shop/checkout, crash-
 * looping): tests/scenarios/demo.yaml lists checkout's logs first, and its logs are KWOK's
 * catch-all group (`all`).
 */
export function appendCheckoutLine(clusterDir: string, line: string): void {
  appendFileSync(join(clusterDir, 'container-logs', `${logFilePrefix({})}-0-current.log`), toCriLog(line, new Date()));
}
