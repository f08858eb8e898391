// What the command palette offers for what was typed: pure, so it is unit-tested without a
// browser. `:deploy`, `:po`, `:ns` jump to a kind as k9s does; any other text matches screens,
// namespaces and (from the agent's search) objects of the cluster.
import { KINDS, type Kind } from '../api/kinds.ts';

export interface PaletteItem {
  id: string;
  label: string;
  /** What it is: Screen, Kind, Namespace, or an object's kind. */
  group: string;
  href: string;
}

/** k9s' and kubectl's short names, each to its kind. */
const ALIASES: Readonly<Record<string, Kind>> = {
  deploy: 'deployments', deployment: 'deployments', dp: 'deployments',
  sts: 'statefulsets', statefulset: 'statefulsets',
  ds: 'daemonsets', daemonset: 'daemonsets',
  rs: 'replicasets', replicaset: 'replicasets',
  job: 'jobs', cj: 'cronjobs', cronjob: 'cronjobs',
  po: 'pods', pod: 'pods',
  svc: 'services', service: 'services',
  ing: 'ingresses', ingress: 'ingresses',
  pvc: 'persistentvolumeclaims', pv: 'persistentvolumes',
  no: 'nodes', node: 'nodes',
  hpa: 'horizontalpodautoscalers', pdb: 'poddisruptionbudgets',
  ev: 'events', event: 'events',
  cm: 'configmaps', configmap: 'configmaps', secret: 'secrets',
};

/** At most this many items of each group, so the list stays readable. */
const PER_GROUP = 8;

/** The kinds `:word` names: an alias exactly, else every kind starting with it. */
export function kindCommands(word: string): PaletteItem[] {
  const w = word.trim().toLowerCase();
  const extra: PaletteItem[] = [
    ...('namespaces'.startsWith(w) || w === 'ns' ? [{ id: 'kind:namespaces', label: 'Namespaces', group: 'Kind', href: '/namespaces' }] : []),
    // kubectl's `crd`, and the plural: every custom kind the cluster's CRDs add.
    ...('customresourcedefinitions'.startsWith(w) || w === 'crd' || w === 'crds' ? [{ id: 'kind:custom-resources', label: 'Custom resources', group: 'Kind', href: '/custom-resources' }] : []),
  ];
  const exact = ALIASES[w];
  const kinds = exact ? KINDS.filter((k) => k.kind === exact) : KINDS.filter((k) => k.kind.startsWith(w));
  return [...kinds.map((k) => ({ id: `kind:${k.kind}`, label: k.label, group: 'Kind', href: `/resources/${k.kind}` })), ...extra];
}

export function paletteItems(text: string, screens: readonly { label: string; href: string }[], namespaces: readonly string[], objects: readonly PaletteItem[]): PaletteItem[] {
  const t = text.trim().toLowerCase();
  if (t.startsWith(':')) return kindCommands(t.slice(1));
  const has = (s: string) => t === '' || s.toLowerCase().includes(t);
  return [
    ...screens.filter((s) => has(s.label)).slice(0, PER_GROUP).map((s) => ({ id: `screen:${s.href}`, label: s.label, group: 'Screen', href: s.href })),
    ...(t === '' ? [] : namespaces.filter(has).slice(0, PER_GROUP).map((n) => ({ id: `namespace:${n}`, label: n, group: 'Namespace', href: `/namespaces/${n}` }))),
    ...objects.slice(0, PER_GROUP),
  ];
}
