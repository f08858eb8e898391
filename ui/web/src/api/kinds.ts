// The kinds Resources browses, with their labels: no imports beyond the API's types, so the
// command palette's matching (and its unit test) can use them without the HTTP client.
import type { paths } from './schema.js';

export type Kind = paths['/resources/{kind}']['get']['parameters']['path']['kind'];

export const KINDS: readonly { kind: Kind; label: string }[] = [
  { kind: 'deployments', label: 'Deployments' },
  { kind: 'statefulsets', label: 'StatefulSets' },
  { kind: 'daemonsets', label: 'DaemonSets' },
  { kind: 'replicasets', label: 'ReplicaSets' },
  { kind: 'jobs', label: 'Jobs' },
  { kind: 'cronjobs', label: 'CronJobs' },
  { kind: 'pods', label: 'Pods' },
  { kind: 'services', label: 'Services' },
  { kind: 'ingresses', label: 'Ingresses' },
  { kind: 'persistentvolumeclaims', label: 'PersistentVolumeClaims' },
  { kind: 'persistentvolumes', label: 'PersistentVolumes' },
  { kind: 'nodes', label: 'Nodes' },
  { kind: 'horizontalpodautoscalers', label: 'HorizontalPodAutoscalers' },
  { kind: 'poddisruptionbudgets', label: 'PodDisruptionBudgets' },
  { kind: 'events', label: 'Events' },
  { kind: 'configmaps', label: 'ConfigMaps' },
  { kind: 'secrets', label: 'Secrets' },
];
