// Where a copilot run may send a prompt (AI Guardrails): the data-residency rule (only a local
// provider: no key, a private endpoint) and the egress allowlist of provider hosts. Pure: the
// runtime asks before it builds a model, and a refusal names the rule.

import type { ProviderName } from '../../schema/copilot.ts';

/** Each provider's endpoint when the settings name none. */
export const DEFAULT_BASE_URL: Readonly<Record<ProviderName, string | null>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  // Azure has no default: the resource's own endpoint is required.
  azure: null,
  openai_compatible: null,
  ollama: 'http://localhost:11434/v1',
};

export interface EgressQuestion {
  provider: ProviderName;
  baseUrl: string | null;
  /** Whether a key would be sent (stored, or carried by this request). */
  withKey: boolean;
  residency: 'any' | 'local_only';
  /** Hosts a prompt may go to; empty: any. `*.example.com` admits subdomains. */
  allowlist: readonly string[];
}

export type EgressVerdict = { allowed: true; url: string } | { allowed: false; rule: 'no_endpoint' | 'residency' | 'egress_allowlist'; message: string };

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A host that stays inside the cluster or the machine: loopback, private and link-local ranges, cluster DNS, a single-label name. */
export function isPrivateHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h.endsWith('.svc') || h.endsWith('.svc.cluster.local') || h.endsWith('.cluster.local') || h.endsWith('.internal')) return true;
  const v4 = IPV4.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  if (h.includes(':')) return h === '::1' || /^f[cd][0-9a-f]{2}:/.test(h) || /^fe[89ab][0-9a-f]:/.test(h);
  // A name without a dot resolves through the cluster's or the host's search domains.
  return !h.includes('.');
}

function hostAllowed(host: string, allowlist: readonly string[]): boolean {
  const h = host.toLowerCase();
  return allowlist.some((entry) => {
    const e = entry.trim().toLowerCase();
    return e.startsWith('*.') ? h.endsWith(e.slice(1)) : h === e;
  });
}

export function checkEgress(q: EgressQuestion): EgressVerdict {
  const url = q.baseUrl ?? DEFAULT_BASE_URL[q.provider];
  if (url === null) return { allowed: false, rule: 'no_endpoint', message: `provider ${q.provider} needs a base URL` };
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return { allowed: false, rule: 'no_endpoint', message: `base URL ${url} is not a URL` };
  }
  if (q.residency === 'local_only') {
    if (q.provider !== 'ollama' && q.provider !== 'openai_compatible') return { allowed: false, rule: 'residency', message: `data residency allows only a local provider (Ollama or an OpenAI-compatible endpoint inside the cluster), not ${q.provider}` };
    if (q.withKey) return { allowed: false, rule: 'residency', message: 'data residency allows only a local provider, which takes no key' };
    if (!isPrivateHost(host)) return { allowed: false, rule: 'residency', message: `data residency allows only a private endpoint; ${host} is not one` };
  }
  if (q.allowlist.length > 0 && !hostAllowed(host, q.allowlist)) return { allowed: false, rule: 'egress_allowlist', message: `provider host ${host} is not in the egress allowlist` };
  return { allowed: true, url };
}
