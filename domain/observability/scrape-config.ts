// GET /observability/scrape-config (spec §4; docs/observability.md, "The scrape config"): what a
// cluster's own Prometheus needs to scrape every node's container metrics (cAdvisor) through the
// API server's node proxy, as text an admin applies themselves. Pure: nothing is applied.
//
// The scraper's account may `get` nodes/proxy and nodes/metrics and nothing else. Node service
// discovery (listing nodes) is Prometheus' own account's work, as it already does for its other
// Kubernetes jobs; the scraper's token is only presented to the API server's proxy.
import { stringify } from 'yaml';

export const SCRAPER_ACCOUNT = 'capstan-metrics-scraper';
/** Where the block expects the scraper's token: the token Secret mounted into Prometheus at this path. */
export const SCRAPER_TOKEN_DIR = `/etc/prometheus/secrets/${SCRAPER_ACCOUNT}`;

export const NODES_PROXY_WARNING =
  'nodes/proxy is powerful: through the API server it reaches every kubelet endpoint, and with more than get (create, the verb of exec and attach) it runs commands in any pod. This ClusterRole grants get only; keep the token to Prometheus alone.';

export interface ScrapeConfig {
  namespace: string;
  /** ServiceAccount, ClusterRole, ClusterRoleBinding and the token Secret, one YAML stream. */
  rbac: string;
  /** One `scrape_configs` entry. */
  scrape_config: string;
  warning: string;
}

export function scrapeConfig(namespace: string): ScrapeConfig {
  const labels = { 'app.kubernetes.io/name': SCRAPER_ACCOUNT, 'app.kubernetes.io/managed-by': 'capstan' };
  const docs = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SCRAPER_ACCOUNT, namespace, labels }, automountServiceAccountToken: false },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: SCRAPER_ACCOUNT, labels },
      rules: [{ apiGroups: [''], resources: ['nodes/proxy', 'nodes/metrics'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: SCRAPER_ACCOUNT, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SCRAPER_ACCOUNT },
      subjects: [{ kind: 'ServiceAccount', name: SCRAPER_ACCOUNT, namespace }],
    },
    { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: `${SCRAPER_ACCOUNT}-token`, namespace, labels, annotations: { 'kubernetes.io/service-account.name': SCRAPER_ACCOUNT } } },
  ];
  const header = `# Capstan: read-only access for Prometheus to scrape node container metrics.\n# WARNING: ${NODES_PROXY_WARNING}\n`;
  const rbac = header + docs.map((d) => stringify(d)).join('---\n');
  const job = [
    {
      job_name: 'capstan-node-cadvisor',
      scheme: 'https',
      // Discovery uses Prometheus' own in-cluster account (list and watch nodes), as its other jobs do.
      kubernetes_sd_configs: [{ role: 'node' }],
      tls_config: { ca_file: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt' },
      authorization: { credentials_file: `${SCRAPER_TOKEN_DIR}/token` },
      relabel_configs: [
        { action: 'labelmap', regex: '__meta_kubernetes_node_label_(.+)' },
        { target_label: '__address__', replacement: 'kubernetes.default.svc:443' },
        { source_labels: ['__meta_kubernetes_node_name'], regex: '(.+)', target_label: '__metrics_path__', replacement: '/api/v1/nodes/$1/proxy/metrics/cadvisor' },
      ],
    },
  ];
  const scrape = `# Capstan: node container metrics (cAdvisor) through the API server's node proxy.\n# Mount the Secret ${SCRAPER_ACCOUNT}-token (namespace ${namespace}) into Prometheus at ${SCRAPER_TOKEN_DIR}.\n${stringify(job)}`;
  return { namespace, rbac, scrape_config: scrape, warning: NODES_PROXY_WARNING };
}
