// The demo's scanner reports. KWOK pods run no image, so neither trivy-operator nor trivy can
// scan them; the demo installs the operator's two report CRDs (v0.29.0, vendored in
// tests/fixtures/trivy-operator) and writes VulnerabilityReports as the operator would, from
// trivy v0.74.0's real JSON on the offline fixture image (docs/trivy-offline.md), for a few
// Deployments. The findings are that image's five real Debian 12 advisories, attributed to
// these workloads' images: what the Security screen looks like with a scanner alongside.
// Only `capstan demo` does this; the test suite's cluster has no reports unless a test adds them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { vulnerabilityReport, type TrivyImageReport } from '../trivy-reports.ts';
import { kubectl, waitFor, waitForCrdsEstablished, type KubectlOptions } from './kubectl.ts';

const FIXTURES = fileURLToPath(new URL('../../tests/fixtures/', import.meta.url));
const CRD_DIR = `${FIXTURES}trivy-operator/crds`;
const SCAN = `${FIXTURES}trivy/image-bookworm-before-fixes.json`;

/** The demo Deployments given a report: a storefront, a payments service, a platform tool. */
export const DEMO_SCANNED: readonly { namespace: string; deployment: string }[] = [
  { namespace: 'shop', deployment: 'frontend' },
  { namespace: 'payments', deployment: 'payments-api' },
  { namespace: 'platform', deployment: 'node-debugger' },
];

interface ReplicaSetList {
  items: {
    metadata: { name: string; namespace: string; uid: string; ownerReferences?: { kind: string; name: string }[] };
    spec: { template: { spec: { containers: { name: string; image: string }[] } } };
  }[];
}

/** Installs the CRDs and one report per container of each scanned Deployment's ReplicaSets. Returns how many it wrote. */
export async function applyDemoScannerReports(options: Pick<KubectlOptions, 'kubeconfig' | 'binDir'>, now: Date = new Date()): Promise<number> {
  const k = (args: string[], input?: string) => kubectl(args, { ...options, input });
  await k(['apply', '--server-side', '-f', CRD_DIR]);
  await waitForCrdsEstablished(k, ['vulnerabilityreports.aquasecurity.github.io', 'configauditreports.aquasecurity.github.io']);
  await waitFor('the VulnerabilityReport CRD served', () => k(['get', 'vulnerabilityreports', '-A']).then(() => true, () => false), 30_000, 250);
  const scan = JSON.parse(readFileSync(SCAN, 'utf8')) as TrivyImageReport;
  const reports: object[] = [];
  for (const { namespace, deployment } of DEMO_SCANNED) {
    // The Deployment controller creates the ReplicaSet moments after the scenario is applied.
    let owned: ReplicaSetList['items'] = [];
    await waitFor(`${namespace}/${deployment}'s ReplicaSet`, async () => {
      const list = JSON.parse(await k(['get', 'replicasets', '-n', namespace, '-o', 'json'])) as ReplicaSetList;
      owned = list.items.filter((rs) => rs.metadata.ownerReferences?.some((o) => o.kind === 'Deployment' && o.name === deployment));
      return owned.length > 0;
    }, 60_000, 500);
    for (const rs of owned) {
      const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace, name: rs.metadata.name, uid: rs.metadata.uid, podSpec: rs.spec.template.spec };
      for (const c of rs.spec.template.spec.containers) reports.push(vulnerabilityReport(scan, owner, c.name, c.image, now));
    }
  }
  await k(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: reports }));
  return reports.length;
}
