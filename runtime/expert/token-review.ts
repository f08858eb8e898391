// Who may call the expert pod: the agent's ServiceAccount, proved by a token the kubelet
// projected for the expert's audience and checked by the API server's TokenReview (no static
// shared secret). A token minted for another audience, another account's token, an expired
// or a forged one: all refused. An accepted review is kept a minute (by the token's SHA-256),
// so the agent's calls do not cost a review each.
import { createHash } from 'node:crypto';
import type { Clock } from '../../domain/clock.ts';
import type { KubeAccess } from '../kube/client.ts';
import { apiRequest } from '../kube/api-request.ts';

export type ReviewVerdict = { ok: true; username: string } | { ok: false; reason: string };

export interface TokenReviewer {
  review(token: string): Promise<ReviewVerdict>;
}

const ACCEPTED_TTL_MS = 60_000;
const MAX_KEPT = 32;

interface ReviewStatus {
  authenticated?: boolean;
  audiences?: string[];
  user?: { username?: string };
  error?: string;
}

/** `caller` is the one account accepted, `namespace:name` (system:serviceaccount:<namespace>:<name>). */
export function tokenReviewer(kc: KubeAccess, options: { audience: string; caller: string; clock: Clock }): TokenReviewer {
  const expected = `system:serviceaccount:${options.caller}`;
  const accepted = new Map<string, number>();
  return {
    async review(token) {
      const key = createHash('sha256').update(token).digest('hex');
      const now = options.clock.now().getTime();
      const at = accepted.get(key);
      if (at !== undefined && now - at < ACCEPTED_TTL_MS) return { ok: true, username: expected };
      let status: ReviewStatus;
      try {
        const answer = await apiRequest(kc, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: [options.audience] } });
        if (answer.status !== 201 && answer.status !== 200) return { ok: false, reason: `the TokenReview was refused (status ${String(answer.status)})` };
        status = (JSON.parse(answer.text) as { status?: ReviewStatus }).status ?? {};
      } catch (err) {
        return { ok: false, reason: `the TokenReview failed: ${err instanceof Error ? err.message : String(err)}` };
      }
      if (status.authenticated !== true) return { ok: false, reason: `the token is not valid for audience ${options.audience}${status.error ? `: ${status.error}` : ''}` };
      if (!(status.audiences ?? []).includes(options.audience)) return { ok: false, reason: `the token is not for audience ${options.audience}` };
      if (status.user?.username !== expected) return { ok: false, reason: `${status.user?.username ?? 'an unnamed account'} may not call the expert pod` };
      if (accepted.size >= MAX_KEPT) accepted.clear();
      accepted.set(key, now);
      return { ok: true, username: expected };
    },
  };
}
