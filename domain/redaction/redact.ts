// One redaction pass shared by every surface that shows text nobody vetted: audit rows, pod
// log tails, event messages, AI prompts. It errs towards hiding: a false positive costs a
// little readability, a false negative leaks a credential.
//
// Idempotence comes from ordering, not from looping to a fixed point: every rule replaces
// whole runs of its own characters with REDACTED, whose brackets belong to no key, token or
// scheme, so no rule can create a match for a rule that ran before it. The rules whose
// acceptance depends on the full token (Basic's decode check) run last for the same reason.
// Every pattern is anchored on a literal or a lookbehind and has no nested quantifiers, so
// the cost stays linear in the input.

export const REDACTED = '[REDACTED]';

type Rule = (text: string) => string;

/** `fn` returns the replacement, or undefined to keep the match and look again one character on. */
function replaceEach(text: string, re: RegExp, fn: (m: RegExpExecArray) => string | undefined): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const replacement = fn(m);
    if (replacement === undefined) {
      re.lastIndex = m.index + 1;
      continue;
    }
    out += text.slice(last, m.index) + replacement;
    last = re.lastIndex;
  }
  return out + text.slice(last);
}

const CAPSTAN_PREFIX = /^capstan_[0-9a-f]{8}_/;
const ALREADY_REDACTED = /^(?:capstan_[0-9a-f]{8}_)?\[REDACTED\]$/;

/** Keeps a Capstan key's public prefix so an operator can still tell which key leaked. */
function secretValue(value: string): string {
  return (CAPSTAN_PREFIX.exec(value)?.[0] ?? '') + REDACTED;
}

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,20}-----/g;
const PEM_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,20}-----/g;

function redactPem(text: string): string {
  let out = '';
  let last = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let begin = PEM_BEGIN.exec(text); begin !== null; begin = PEM_BEGIN.exec(text)) {
    PEM_END.lastIndex = PEM_BEGIN.lastIndex;
    // A log tail can cut a key in half; with no END in sight, hide everything after BEGIN.
    const end = PEM_END.exec(text) === null ? text.length : PEM_END.lastIndex;
    out += text.slice(last, begin.index) + REDACTED;
    last = end;
    PEM_BEGIN.lastIndex = end;
  }
  return out + text.slice(last);
}

const CAPSTAN_KEY = /(?<![A-Za-z0-9])(capstan_[0-9a-f]{8}_)[A-Za-z0-9]+/g;
const BEARER = /\b(bearer[ \t]+)((?:capstan_[0-9a-f]{8}_)?\[REDACTED\]|[A-Za-z0-9\-._~+/=]+)/gi;
const BASIC = /\b(basic[ \t]+)([A-Za-z0-9+/]+={0,2})/gi;
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:@/?#]*:)([^\s/?#]+)@/gi;

/** Prose says "Bearer token"; real tokens are long or carry digits. Monotone in length, so
 *  a later rule shortening the token can never turn a refusal into a match. */
const looksLikeToken = (token: string): boolean => token.length >= 20 || /\d/.test(token);

/** Basic credentials are base64("user:pass"); checking that keeps "Basic auth enabled" intact. */
function isBasicCredential(token: string): boolean {
  if (token.length % 4 !== 0) return false;
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  return decoded.includes(':') && /^[^\x00-\x1f\x7f\ufffd]+$/.test(decoded);
}

const SECRET_WORD =
  /^(?:pwd|auth|authorization|session|sessionid|cookies?|credentials?|passphrase|jwt)$|(?:password|passwd|secret|token|apikey|accesskey|privatekey)$/;
const KEY_PAIR_HEAD = /^(?:api|access|private)$/;

function isSecretKey(key: string): boolean {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
  return words.some((word, i) => SECRET_WORD.test(word) || (KEY_PAIR_HEAD.test(word) && words[i + 1] === 'key'));
}

// `(?<![\w.-])` lets a key start only at the head of a run, keeping the scan linear.
const KEY = /(?<![\w.-])(\\?["']|)([\w.-]+)\1([ \t]*=|:)[ \t]*/g;
const VALUE =
  /((?:bearer|basic|token)[ \t]+)?((?:capstan_[0-9a-f]{8}_)?\[REDACTED\]|\\"(?:[^\\\n]|\\[^"\n])*(?:\\")?|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|[^\s"'`,;&)}\]>]+)/iy;
// A `Cookie:` header is a list of name=value pairs that are all session material.
const COOKIE_VALUE = /[^\r\n"']+/y;

function maskValue(value: string): string {
  const open = /^(?:\\"|"|')/.exec(value)?.[0];
  if (open === undefined) return secretValue(value);
  const closed = value.length >= 2 * open.length && value.endsWith(open);
  return open + secretValue(value.slice(open.length, closed ? -open.length : undefined)) + (closed ? open : '');
}

function redactPairs(text: string): string {
  let out = '';
  let last = 0;
  KEY.lastIndex = 0;
  for (let m = KEY.exec(text); m !== null; m = KEY.exec(text)) {
    const key = m[2] ?? '';
    // `scheme://user:pass@` is the URL rule's, which keeps the host visible.
    const userinfo = m[3] === ':' && text.slice(m.index - 3, m.index) === '://';
    if (userinfo || !isSecretKey(key)) continue;
    const re = /cookie/i.test(key) && m[1] === '' && m[3] === ':' && !/^["']/.test(text.charAt(KEY.lastIndex)) ? COOKIE_VALUE : VALUE;
    re.lastIndex = KEY.lastIndex;
    const v = re.exec(text);
    if (v === null) continue;
    const scheme = re === VALUE ? (v[1] ?? '') : '';
    const value = re === VALUE ? (v[2] ?? '') : v[0];
    out += text.slice(last, KEY.lastIndex) + scheme + maskValue(value);
    last = re.lastIndex;
    KEY.lastIndex = re.lastIndex;
  }
  return out + text.slice(last);
}

const TOKEN_SHAPES: readonly RegExp[] = [
  /\beyJ[\w-]+\.[\w-]+\.[\w-]*/g, // JWT
  /\b(?:gh[pousr]_|github_pat_)\w{20,}/g,
  /\bxox[abeoprs]-[\w-]{10,}/g, // Slack
  /\bAIza[\w-]{35,}/g, // Google API key
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key id
];
// OpenAI / Anthropic keys are mixed case; requiring a capital spares kebab-case pod names.
const SK_KEY = /\bsk-[\w-]{20,}/g;

const RULES: readonly Rule[] = [
  redactPem,
  (t) => t.replace(CAPSTAN_KEY, `$1${REDACTED}`),
  (t) => replaceEach(t, BEARER, (m) => (ALREADY_REDACTED.test(m[2] ?? '') || !looksLikeToken(m[2] ?? '') ? undefined : (m[1] ?? '') + secretValue(m[2] ?? ''))),
  redactPairs,
  ...TOKEN_SHAPES.map((re): Rule => (t) => t.replace(re, REDACTED)),
  (t) => replaceEach(t, SK_KEY, (m) => (/[A-Z]/.test(m[0]) ? REDACTED : undefined)),
  (t) => t.replace(URL_PASSWORD, (_m, head: string, password: string) => `${head}${secretValue(password)}@`),
  (t) => replaceEach(t, BASIC, (m) => (isBasicCredential(m[2] ?? '') ? `${m[1] ?? ''}${REDACTED}` : undefined)),
];

/** Replaces credentials in free text, keeping the words around them. Never throws. */
export function redactText(text: string): string {
  try {
    return RULES.reduce((acc, rule) => rule(acc), text);
  } catch {
    // Fail closed: if a pattern ever blows up (e.g. regexp stack on pathological input),
    // showing nothing is safer than showing the unredacted text.
    return REDACTED;
  }
}

/** Values under a secret-looking key are hidden whole; the rest get the free-text pass. */
export function redactRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, isSecretKey(key) ? REDACTED : redactText(value)]));
}
