// An application member's flags (docs/applications.md, Flags): what its requests and limits
// lack, and how its usage compares with them. Pure: a pod and its measured usage in, flags out.
import { APP_FLAGS, type AppFlag } from '../../schema/apps.ts';
import type { PodObject, PodUsage } from '../cluster/model.ts';
import { atOomRisk } from '../incidents/detect.ts';
import { podResources } from '../resources/pod.ts';

/** The flags of docs/applications.md, in the order APP_FLAGS lists them. */
export function memberFlags(pod: PodObject, usage: PodUsage | undefined): AppFlag[] {
  const flags = new Set<AppFlag>();
  const resources = pod.containers.map((c) => c.resources);
  const lacksCpu = resources.some((r) => r.cpuRequestM === null);
  const lacksMem = resources.some((r) => r.memRequestBytes === null);
  if (resources.every((r) => r.cpuRequestM === null && r.memRequestBytes === null)) flags.add('no_requests');
  else {
    if (lacksCpu) flags.add('no_cpu_request');
    if (lacksMem) flags.add('no_memory_request');
  }
  if (usage) {
    // The pod's limit is null unless every container is limited (podResources).
    const { cpuRequestM: cpuRequest, memRequestBytes: memRequest, memLimitBytes: memLimit } = podResources(pod);
    if (atOomRisk(usage.memBytes, memLimit)) flags.add('near_memory_limit');
    if (cpuRequest !== null && !lacksCpu && usage.cpuM > cpuRequest) flags.add('cpu_above_request');
    if (memRequest !== null && !lacksMem && usage.memBytes > memRequest) flags.add('memory_above_request');
  }
  return APP_FLAGS.filter((f) => flags.has(f));
}
