// Every analyzer, one module per kind; the engine runs them in this order.
import type { Analyzer } from '../input.ts';
import { analyzeNodes } from './nodes.ts';
import { analyzePods } from './pods.ts';
import { analyzeWorkloads } from './workloads.ts';
import { analyzeJobs } from './jobs.ts';
import { analyzeNetwork } from './network.ts';
import { analyzeStorage } from './storage.ts';
import { analyzeQuota } from './quota.ts';
import { analyzeAutoscaling } from './autoscaling.ts';

export const ANALYZERS: readonly { name: string; reads: readonly string[]; analyze: Analyzer }[] = [
  { name: 'nodes', reads: ['nodes', 'leases'], analyze: analyzeNodes },
  { name: 'pods', reads: ['pods', 'events'], analyze: analyzePods },
  { name: 'workloads', reads: ['deployments', 'daemonsets', 'replicasets', 'statefulsets', 'events'], analyze: analyzeWorkloads },
  { name: 'jobs', reads: ['jobs', 'cronjobs'], analyze: analyzeJobs },
  { name: 'network', reads: ['services', 'endpointslices', 'ingresses', 'ingressclasses', 'secrets'], analyze: analyzeNetwork },
  { name: 'storage', reads: ['persistentvolumeclaims', 'persistentvolumes', 'storageclasses'], analyze: analyzeStorage },
  { name: 'quota', reads: ['resourcequotas', 'limitranges', 'events'], analyze: analyzeQuota },
  { name: 'autoscaling', reads: ['horizontalpodautoscalers', 'poddisruptionbudgets', 'deployments', 'statefulsets', 'replicasets'], analyze: analyzeAutoscaling },
];
