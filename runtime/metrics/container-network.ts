// Pod network counters from a kubelet's container-metrics (cAdvisor) endpoint, in the
// Prometheus text format. cAdvisor reports one pod's network namespace once per container
// (and for the pod's own cgroup, container="" or "POD"), all with the same values, so a pod's
// counter is the sum over interfaces of the largest value any of its containers reports.
//
// A rate is bytes over the time between two readings, so every pod's counters carry when they
// were current: the sample timestamp cAdvisor stamps on each line (its statistics are refreshed
// every 10-15 s, so a counter may be that old when served); else the pod's
// `container_last_seen` (unix seconds), which an endpoint that cannot stamp lines (KWOK, the
// local cluster's) sets to the instant it computed the counters; else when the node answered,
// which a starved agent can learn hundreds of ms late.

const RX = 'container_network_receive_bytes_total';
const TX = 'container_network_transmit_bytes_total';
const LAST_SEEN = 'container_last_seen';

export interface PodCounters {
  rxBytes: number;
  txBytes: number;
  /** When these values were current, epoch ms (on the kubelet's clock when it stamped them). */
  atMs: number;
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** The optional sample timestamp, epoch ms. */
  timestampMs: number | null;
}

/** `name{a="b",c="d"} 12 [ts]` → name, labels, value, timestamp; null for comments, blanks and other shapes. */
export function parseSampleLine(line: string): Sample | null {
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
  const [valueText, timestampText] = rest.split(/\s+/);
  const value = Number(valueText);
  const timestamp = timestampText === undefined ? null : Number(timestampText);
  if (!Number.isFinite(value)) return null;
  return { name, labels, value, timestampMs: timestamp !== null && Number.isSafeInteger(timestamp) && timestamp > 0 ? timestamp : null };
}

/** Counters per `namespace/pod` from one endpoint's text, which arrived at `answeredAtMs`. */
export function podNetworkCounters(text: string, answeredAtMs: number): Map<string, PodCounters> {
  // pod → interface → largest value seen across the pod's containers
  const rx = new Map<string, Map<string, number>>();
  const tx = new Map<string, Map<string, number>>();
  // pod → the latest sample timestamp on its network lines
  const stamped = new Map<string, number>();
  // pod → its latest container_last_seen, epoch ms
  const seen = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(RX) && !line.startsWith(TX) && !line.startsWith(LAST_SEEN)) continue;
    const sample = parseSampleLine(line);
    if (!sample || (sample.name !== RX && sample.name !== TX && sample.name !== LAST_SEEN)) continue;
    const namespace = sample.labels.namespace;
    const pod = sample.labels.pod ?? sample.labels.pod_name;
    if (!namespace || !pod) continue;
    const key = `${namespace}/${pod}`;
    if (sample.name === LAST_SEEN) {
      if (sample.value > 0) seen.set(key, Math.max(seen.get(key) ?? 0, Math.round(sample.value * 1000)));
      continue;
    }
    const target = sample.name === RX ? rx : tx;
    const interfaces = target.get(key) ?? new Map<string, number>();
    const iface = sample.labels.interface ?? '';
    interfaces.set(iface, Math.max(interfaces.get(iface) ?? 0, sample.value));
    target.set(key, interfaces);
    if (sample.timestampMs !== null) stamped.set(key, Math.max(stamped.get(key) ?? 0, sample.timestampMs));
  }
  const total = (m: Map<string, number> | undefined) => [...(m?.values() ?? [])].reduce((a, b) => a + b, 0);
  const counters = new Map<string, PodCounters>();
  for (const key of new Set([...rx.keys(), ...tx.keys()])) counters.set(key, { rxBytes: total(rx.get(key)), txBytes: total(tx.get(key)), atMs: stamped.get(key) ?? seen.get(key) ?? answeredAtMs });
  return counters;
}
