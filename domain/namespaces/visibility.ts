// Spec §1 "Namespace blocklist": always hidden, whatever the settings. The spec leaves the
// seven third-party names and the two cloud prefixes to us; docs/configuration.md lists them.

export const BLOCKED_NAMESPACES: ReadonlySet<string> = new Set([
  'kube-system',
  'kube-public',
  'kube-node-lease',
  'paas-core',
  'monitoring',
  'logging',
  'capstan-system',
  // service mesh, certificates, ingress, GitOps and workflow tooling
  'istio-system',
  'linkerd',
  'cert-manager',
  'ingress-nginx',
  'argocd',
  'flux-system',
  'argo',
]);

export const BLOCKED_NAMESPACE_PREFIXES: readonly string[] = ['kube-', 'gke-managed-', 'aks-'];

export function isSystemNamespace(name: string): boolean {
  return BLOCKED_NAMESPACES.has(name) || BLOCKED_NAMESPACE_PREFIXES.some((p) => name.startsWith(p));
}

/** True when the service may show this namespace: not a system one, and within `tenantNamespaces` if set. */
export function isVisibleNamespace(name: string, tenantNamespaces: readonly string[]): boolean {
  if (isSystemNamespace(name)) return false;
  return tenantNamespaces.length === 0 || tenantNamespaces.includes(name);
}
