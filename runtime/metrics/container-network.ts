// Pod network counters from a kubelet's container-metrics (cAdvisor) endpoint, in the
// Prometheus text format. cAdvisor reports one pod's network namespace once per container
// (and for the pod's own cgroup, container="" or "POD"), all with the same values, so a pod's
// counter is the sum over interfaces of the largest value any of its containers reports.

const RX = 'container_network_receive_bytes_total';
const TX = 'container_network_transmit_bytes_total';

export interface PodCounters {
  rxBytes: number;
  txBytes: number;
}

/** `name{a="b",c="d"} 12 [ts]` → name, labels, value; null for comments, blanks and other shapes. */
export function parseSampleLine(line: string): { name: string; labels: Record<string, string>; value: number } | null {
  if (line === '' || line.startsWith('#')) return null;
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  if (space < 0) return null;
  const labels: Record<string, string> = {};
  let name: string;
  let rest: string;
  if (brace >= 0 && brace < space) {
    name = line.slice(0, brace);
    let i = brace + 1;
    while (i < line.length && line[i] !== '}') {
      const eq = line.indexOf('=', i);
      if (eq < 0 || line[eq + 1] !== '"') return null;
      const key = line.slice(i, eq).trim();
      let value = '';
      let j = eq + 2;
      for (; j < line.length && line[j] !== '"'; j++) {
        const ch = line.charAt(j);
        if (ch === '\\' && j + 1 < line.length) {
          j++;
          value += line.charAt(j) === 'n' ? '\n' : line.charAt(j);
        } else value += ch;
      }
      if (j >= line.length) return null;
      labels[key] = value;
      i = j + 1;
      if (line[i] === ',') i++;
    }
    if (line[i] !== '}') return null;
    rest = line.slice(i + 1).trim();
  } else {
    name = line.slice(0, space);
    rest = line.slice(space + 1).trim();
  }
  const value = Number(rest.split(/\s+/)[0]);
  return Number.isFinite(value) ? { name, labels, value } : null;
}

/** Counters per `namespace/pod` from one endpoint's text. */
export function podNetworkCounters(text: string): Map<string, PodCounters> {
  // pod → interface → largest value seen across the pod's containers
  const rx = new Map<string, Map<string, number>>();
  const tx = new Map<string, Map<string, number>>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(RX) && !line.startsWith(TX)) continue;
    const sample = parseSampleLine(line);
    if (!sample || (sample.name !== RX && sample.name !== TX)) continue;
    const namespace = sample.labels.namespace;
    const pod = sample.labels.pod ?? sample.labels.pod_name;
    if (!namespace || !pod) continue;
    const target = sample.name === RX ? rx : tx;
    const key = `${namespace}/${pod}`;
    const interfaces = target.get(key) ?? new Map<string, number>();
    const iface = sample.labels.interface ?? '';
    interfaces.set(iface, Math.max(interfaces.get(iface) ?? 0, sample.value));
    target.set(key, interfaces);
  }
  const total = (m: Map<string, number> | undefined) => [...(m?.values() ?? [])].reduce((a, b) => a + b, 0);
  const counters = new Map<string, PodCounters>();
  for (const key of new Set([...rx.keys(), ...tx.keys()])) counters.set(key, { rxBytes: total(rx.get(key)), txBytes: total(tx.get(key)) });
  return counters;
}
