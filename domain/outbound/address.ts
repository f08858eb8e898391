// Where an outbound call to a configured endpoint (the AI provider, the audit and chat
// webhooks) may never go: loopback, link-local, the cloud metadata services, the unspecified
// address, and the Kubernetes API, in every spelling (IPv4-mapped, NAT64 and IPv4-compatible
// IPv6 carry an IPv4 address and are judged by it). Private ranges stay allowed: in-cluster
// services are legitimate targets. Pure: runtime/outbound/ asks it for every address it
// resolves before connecting, and the settings handlers ask it of a URL before saving one.

export type RefusedRange = 'loopback' | 'link_local' | 'metadata' | 'unspecified' | 'kubernetes_api';

export interface OutboundPolicy {
  /** CAPSTAN_OUTBOUND_ALLOW_LOOPBACK=1: loopback is allowed (the demo and tests only; the chart never sets it). */
  allowLoopback: boolean;
  /** The Kubernetes API's in-cluster addresses (KUBERNETES_SERVICE_HOST), refused like the kubernetes.default.svc names. */
  kubernetesApiHosts: readonly string[];
}

export const RANGE_TEXT: Readonly<Record<RefusedRange, string>> = {
  loopback: 'a loopback address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  kubernetes_api: 'the Kubernetes API',
};

/** An IP address as 4 (IPv4) or 16 (IPv6) bytes. */
export type IpBytes = readonly number[];

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseIpv4(text: string): number[] | null {
  const m = IPV4.exec(text);
  if (!m) return null;
  const bytes = m.slice(1, 5).map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

function parseIpv6(text: string): number[] | null {
  let s = text;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(s)) return null;
  // A trailing dotted IPv4 part stands for the last two groups.
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.')) {
    const v4 = parseIpv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [(v4[0] ?? 0) * 256 + (v4[1] ?? 0), (v4[2] ?? 0) * 256 + (v4[3] ?? 0)];
    s = s.slice(0, lastColon + 1);
    if (s.endsWith(':') && !s.endsWith('::')) s = s.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const rest = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length + tail.length;
  let all: number[];
  if (halves.length === 2) {
    if (given > 7) return null;
    all = [...head, ...Array<number>(8 - given).fill(0), ...rest, ...tail];
  } else {
    if (given !== 8) return null;
    all = [...head, ...tail];
  }
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The bytes of an IP literal (brackets around IPv6 allowed), or null when the text is not one. */
export function parseIp(text: string): IpBytes | null {
  const t = text.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return parseIpv4(t) ?? (t.includes(':') ? parseIpv6(t) : null);
}

function equal(a: IpBytes, b: IpBytes): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const METADATA = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map((a) => parseIp(a) ?? []);

/** The IPv4 address an IPv6 one carries: IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) or IPv4-compatible (::/96 but :: and ::1). */
function embeddedIpv4(b: IpBytes): IpBytes | null {
  const prefix = b.slice(0, 12);
  const zeros = (n: number) => prefix.slice(0, n).every((x) => x === 0);
  const last = b.slice(12);
  if (zeros(10) && prefix[10] === 0xff && prefix[11] === 0xff) return last;
  if (equal(prefix, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return last;
  if (zeros(12) && !(last[0] === 0 && last[1] === 0 && last[2] === 0 && (last[3] === 0 || last[3] === 1))) return last;
  return null;
}

function classify(b: IpBytes): Exclude<RefusedRange, 'kubernetes_api'> | null {
  if (METADATA.some((m) => equal(m, b))) return 'metadata';
  if (b.length === 4) {
    if (b[0] === 0) return 'unspecified';
    if (b[0] === 127) return 'loopback';
    if (b[0] === 169 && b[1] === 254) return 'link_local';
    return null;
  }
  const v4 = embeddedIpv4(b);
  if (v4 !== null) return classify(v4);
  if (b.every((x) => x === 0)) return 'unspecified';
  if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return 'loopback';
  if (b[0] === 0xfe && ((b[1] ?? 0) & 0xc0) === 0x80) return 'link_local';
  return null;
}

/** Why an outbound call may not go to this IP address, or null when it may (also null for a text that is not an address). */
export function refusedAddress(address: string, policy: OutboundPolicy): RefusedRange | null {
  const bytes = parseIp(address);
  if (bytes === null) return null;
  const v4 = bytes.length === 16 ? embeddedIpv4(bytes) : null;
  const forms = v4 === null ? [bytes] : [bytes, v4];
  if (policy.kubernetesApiHosts.some((h) => { const k = parseIp(h); return k !== null && forms.some((f) => equal(f, k)); })) return 'kubernetes_api';
  const range = classify(bytes);
  if (range === 'loopback' && policy.allowLoopback) return null;
  return range;
}

/**
 * Why an outbound call may not go to this host (a name or an IP literal, as a URL's hostname
 * has it), before any lookup: the Kubernetes API's names (kubernetes, kubernetes.default,
 * kubernetes.default.svc[.*]), a name equal to KUBERNETES_SERVICE_HOST, localhost unless
 * loopback is allowed, and refused address literals. A name that resolves to a refused
 * address is caught when it is resolved, before the connection.
 */
export function refusedHost(host: string, policy: OutboundPolicy): RefusedRange | null {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (parseIp(h) !== null) return refusedAddress(h, policy);
  if (h === 'kubernetes' || h === 'kubernetes.default' || h === 'kubernetes.default.svc' || h.startsWith('kubernetes.default.svc.')) return 'kubernetes_api';
  if (policy.kubernetesApiHosts.some((k) => k.toLowerCase() === h)) return 'kubernetes_api';
  if (!policy.allowLoopback && (h === 'localhost' || h.endsWith('.localhost'))) return 'loopback';
  return null;
}

/**
 * What a configured URL is: a `base` the client appends its own paths to (the AI provider's base
 * URL), or an `endpoint` posted to as it is (a webhook).
 */
export type ConfiguredUrlUse = 'base' | 'endpoint';

/**
 * Why a URL an admin configures for outbound calls cannot be saved, or null when it can: not
 * http(s), credentials in it, a `#` (never sent, so it only hides what the URL says), a `?` in a
 * base URL (the client appends its own path, which a query would swallow, so the URL would pick
 * the path; a webhook's query is how several chat services carry their token, and is kept), or a
 * host in a refused range.
 */
export function configuredUrlProblem(url: string, policy: OutboundPolicy, use: ConfiguredUrlUse): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials (user:password@); use the key or token field';
  if (url.includes('#')) return 'must not contain # (no fragment)';
  if (use === 'base' && url.includes('?')) return 'must not contain ? (no query: paths are appended to a base URL)';
  const range = refusedHost(parsed.hostname, policy);
  if (range !== null) return `must not point at ${RANGE_TEXT[range]} (${parsed.hostname}); see docs/security.md "Outbound calls"`;
  return null;
}
