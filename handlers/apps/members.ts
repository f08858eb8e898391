// Which pods belong to an application: Kubernetes label-selector semantics (every
// requirement must hold), in the application's namespaces that Capstan may show.
import type { LabelSelector } from '../../schema/apps.ts';
import type { PodObject } from '../../domain/cluster/model.ts';
import type { ScopedClusterView } from '../../domain/cluster/scoped.ts';

export function matchesSelector(labels: Readonly<Record<string, string>>, selector: LabelSelector): boolean {
  for (const [key, value] of Object.entries(selector.match_labels)) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.match_expressions) {
    const has = Object.hasOwn(labels, key);
    const value = labels[key];
    const holds =
      operator === 'Exists' ? has
      : operator === 'DoesNotExist' ? !has
      : operator === 'In' ? has && values.includes(value ?? '')
      : !has || !values.includes(value ?? ''); // NotIn: also true when the label is absent, as in Kubernetes
    if (!holds) return false;
  }
  return true;
}

/**
 * The application's pods, sorted by namespace then name. Pods that finished successfully use
 * nothing and are left out; failed ones stay, since they are usually why someone is looking.
 */
export function appPods(app: { namespaces: readonly string[]; selector: LabelSelector }, cluster: ScopedClusterView): PodObject[] {
  // The scoped view holds no hidden pods: a saved namespace that is hidden now contributes none.
  const namespaces = new Set(app.namespaces);
  return cluster
    .pods()
    .filter((p) => namespaces.has(p.namespace) && p.phase !== 'Succeeded' && matchesSelector(p.labels, app.selector))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/** `Kind/name` of the pod's owning workload. */
export const workloadOf = (pod: PodObject): string => `${pod.workload.kind}/${pod.workload.name}`;
