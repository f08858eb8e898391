// Which of the cluster's Services a piece of configuration names: the hosts a text mentions
// (a URL's host, `host:port`, or a whole value that is a DNS name), and how a pod in a
// namespace resolves one to a Service (`name`, `name.ns`, `name.ns.svc`,
// `name.ns.svc.cluster.local`). Only host names leave here, never the rest of a value: a URL's
// credentials, path and query are dropped, so nothing secret is kept or shown.

/** At most this many hosts are taken from one text. */
const MAX_HOSTS_PER_TEXT = 4;

const LABEL = '[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?';
const DNS_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
/** `scheme://[user[:pass]@]host[:port]` or a bare `host:port`, anywhere in the text. */
const URL_HOST = new RegExp(`[a-z][a-z0-9+.-]*://(?:[^@/\\s]*@)?(${LABEL}(?:\\.${LABEL})*)`, 'gi');
const HOST_PORT = new RegExp(`(?:^|[\\s,;=("'])(${LABEL}(?:\\.${LABEL})*):\\d{1,5}\\b`, 'gi');

/** The host names `text` mentions, lower-cased, each once, in order of appearance. */
export function hostsNamed(text: string): string[] {
  const found: string[] = [];
  const add = (host: string | undefined) => {
    const h = host?.toLowerCase();
    if (h !== undefined && h !== '' && !found.includes(h) && found.length < MAX_HOSTS_PER_TEXT) found.push(h);
  };
  const whole = text.trim().toLowerCase();
  if (DNS_NAME.test(whole)) add(whole);
  for (const m of text.matchAll(URL_HOST)) add(m[1]);
  for (const m of text.matchAll(HOST_PORT)) add(m[1]);
  return found;
}

/** A Service's cluster name written out (`name.ns.svc`, `name.ns.svc.cluster.local`) anywhere in a text, not part of a longer name. */
const SERVICE_NAME = new RegExp(`(?:^|[^-a-z0-9.])(${LABEL}\\.${LABEL}\\.svc(?:\\.cluster\\.local)?)(?![-a-z0-9]|\\.[a-z0-9])`, 'gi');

/**
 * The host names one log line mentions: in a URL, as `host:port`, or a Service's cluster name
 * written out. Unlike a variable's value, a log line that is one bare word is not a host: a
 * line like `starting` names nothing.
 */
export function hostsInLogLine(line: string): string[] {
  const found: string[] = [];
  for (const pattern of [URL_HOST, HOST_PORT, SERVICE_NAME]) {
    for (const m of line.matchAll(pattern)) {
      const h = m[1]?.toLowerCase();
      // A Service's name starts with a letter: a clock (`09:14:02`) or an address is no Service.
      if (h !== undefined && /^[a-z]/.test(h) && !found.includes(h) && found.length < MAX_HOSTS_PER_TEXT) found.push(h);
    }
  }
  return found;
}

/** The Service a pod in `namespace` reaches at `host`, or null when the name is not a Service's. */
export function serviceOfHost(host: string, namespace: string): { namespace: string; name: string } | null {
  const parts = host.replace(/\.$/, '').split('.');
  const [name, ns] = parts;
  // Service names are RFC 1035 labels: they start with a letter.
  if (name === undefined || !/^[a-z]/.test(name)) return null;
  if (parts.length === 1) return { namespace, name };
  if (ns === undefined) return null;
  const rest = parts.slice(2).join('.');
  if (rest === '' || rest === 'svc' || rest === 'svc.cluster.local') return { namespace: ns, name };
  return null;
}
