// One redaction pass shared by every surface that shows text nobody vetted: audit rows, pod
// log tails, event messages, AI prompts. It errs towards hiding: a false positive costs a
// little readability, a false negative leaks a credential.
//
// Idempotence comes from ordering, not from looping to a fixed point: every rule replaces
// whole runs of its own characters with REDACTED, whose brackets belong to no key, token or
// scheme, so no rule can create a match for a rule that ran before it. The rules whose
// acceptance depends on the full token (Basic's decode check) run last for the same reason.
// Fixed-shape tokens go before the rules that look at the character before a name (a token
// replaced by `]` could otherwise expose a `--password` glued to it on the second pass), and
// the rules that keep words before the secret (`--password x`, `-u user:pass`) go before the
// key=value rule, whose value could otherwise swallow their head and leave the secret behind.
//
// Every rule is linear in its input (tests/unit/redaction-linear.test.ts feeds each one 256 KB
// of the characters it would retry on). The input is attacker-influenced (pod logs, query
// strings), and a quadratic rule once froze the event loop for 28 s on one log line. Three
// habits keep it so:
// - a pattern starts on a literal, or on a lookbehind that admits one start per run of its
//   characters, so the engine does not retry the same run from every position in it;
// - a quantified run is followed by a character it cannot contain (or is made atomic with
//   `(?=(run))\1`), so one start costs at most the run it reads;
// - a match a rule rejects resumes where no skipped start could have matched (the end of
//   the run for `sk-` and JWTs, after the scheme word for Bearer and Basic), never one
//   character on, which would re-read the same run from every position.

export const REDACTED = '[REDACTED]';

type Rule = (text: string) => string;

/**
 * `fn` returns the replacement, or undefined to keep the match; the search then resumes at
 * `resume(m)`, by default the end of the match. Each rule's choice is argued where it is made.
 */
function replaceEach(
  text: string,
  re: RegExp,
  fn: (m: RegExpExecArray) => string | undefined,
  resume: (m: RegExpExecArray) => number = (m) => m.index + m[0].length,
): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const replacement = fn(m);
    if (replacement === undefined) {
      re.lastIndex = resume(m);
      continue;
    }
    out += text.slice(last, m.index) + replacement;
    last = re.lastIndex;
  }
  return out + text.slice(last);
}

// Capstan's credentials keep their public part: an API key its `capstan_<8 hex>_` prefix (an
// operator can still tell which key leaked), an OAuth access token its `capstan_oat_`.
// (The prefix pattern is spelled out in each regexp below so each reads as what it matches.)
const CAPSTAN_PREFIX = /^capstan_(?:[0-9a-f]{8}|oat)_/;
const ALREADY_REDACTED = /^(?:capstan_(?:[0-9a-f]{8}|oat)_)?\[REDACTED\]$/;

/** Keeps a Capstan credential's public prefix so an operator can still tell which one leaked. */
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

// API key secrets are base32, OAuth tokens base64url. Each run is taken whole, so a prefix
// repeated inside a run is consumed by the match that starts the run.
const CAPSTAN_KEY = /(?<![A-Za-z0-9])(capstan_[0-9a-f]{8}_)[A-Za-z0-9]+|(?<![A-Za-z0-9])(capstan_oat_)[\w-]+/g;
const BEARER = /\b(bearer[ \t]+)((?:capstan_(?:[0-9a-f]{8}|oat)_)?\[REDACTED\]|[A-Za-z0-9\-._~+/=]+)/gi;
const BASIC = /\b(basic[ \t]+)([A-Za-z0-9+/]+={0,2})/gi;
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:@/?#]*:)([^\s/?#]+)@/gi;

/** A rejected Bearer or Basic match resumes after its scheme word: a token cannot contain
 *  whitespace, so the only later start it could hide is a `bearer ` at its very end. */
const afterScheme = (m: RegExpExecArray): number => m.index + (m[1]?.length ?? 0);

/** Prose says "Bearer token"; real tokens are long or carry digits. Monotone in length, so
 *  a later rule shortening the token can never turn a refusal into a match. */
const looksLikeToken = (token: string): boolean => token.length >= 20 || /\d/.test(token);

/** Basic credentials are base64("user:pass"); checking that keeps "Basic auth enabled" intact. */
function isBasicCredential(token: string): boolean {
  if (token.length % 4 !== 0) return false;
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  return decoded.includes(':') && /^[^\x00-\x1f\x7f\ufffd]+$/.test(decoded);
}

// A name is secret-looking when one of its words (split at `_`, `-`, `.` and camelCase) is a
// secret word, or is `key` after a word that makes it a secret kind (ENCRYPTION_KEY,
// AccountKey; not cache_key or a bare klog `key=`). Words match whole or as a suffix, so
// DB_PASS, PGPASS, SECRETKEY and x-api-key all count, and max_tokens does not.
const SECRET_WORD =
  /^(?:pw|pwd|auth|authorization|session|sessionid|cookies?|passphrase|jwt|sig|signature)$|(?:password|passwd|secret|token|credentials?|(?<!by|com|sur|tres|over|under)pass|(?:api|access|private|secret|encryption|account|signing|master|shared|client|license|storage)key)$/;
const NOT_SECRET_KEY_KIND = /^(?:public|primary|foreign|unique|sort|partition|shard|hash|range|routing|cache|idempotency|lookup|map|object|label|group|row|dedup)$/;
// Every secret word contains one of these; most keys in a log line (ts, level, msg) do not,
// and skipping the split for them keeps a line of many short pairs cheap.
const SECRET_HINT = /pass|pw|secret|token|key|auth|session|cookie|cred|jwt|sig/i;

function nameWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

function isSecretKey(key: string): boolean {
  if (!SECRET_HINT.test(key)) return false;
  const words = nameWords(key);
  return words.some((word, i) => SECRET_WORD.test(word) || (word === 'key' && i > 0 && !NOT_SECRET_KEY_KIND.test(words[i - 1] ?? '')));
}

// Identifiers are not secrets: the audit row's `api_key_id=42` names a key without being one.
// A name ending in `id` keeps an id-shaped value (digits, a uuid, an opaque `app_…` id), except
// session and secret ids, which are credentials themselves (a session cookie, Vault's secret_id).
const ID_VALUE = /^(?:\d{1,20}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[a-z]{2,12}_[\w-]{4,32})$/i;

function isIdentifier(key: string, value: string): boolean {
  const words = nameWords(key);
  const before = words[words.length - 2];
  return words[words.length - 1] === 'id' && before !== undefined && !/(?:session|secret)$/.test(before) && ID_VALUE.test(value);
}

// `(?<![\w.-])` lets a key start only at the head of a run, keeping the scan linear. Audit rows
// store the query string as sent, so `password%3Dx` inside a parameter counts as `password=x`.
const KEY = /(?<![\w.-])(\\?["']|)([\w.-]+)\1([ \t]*(?:=|%3[dD])|:|%3[aA])[ \t]*/g;
const VALUE =
  /((?:bearer|basic|token)[ \t]+)?((?:capstan_(?:[0-9a-f]{8}|oat)_)?\[REDACTED\]|\\"(?:[^\\\n]|\\[^"\n])*(?:\\")?|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|(?:\[REDACTED\]|[^\s"'`,;&)}\]>])+)/iy;
// An unquoted value runs through a marker an earlier rule left inside it (`secret=abc-<token>`
// ends as one marker, not `[REDACTED]]`). A percent-encoded value ends at an encoded `&`
// (%26) as well as a raw one.
const ENCODED_VALUE = /()((?:capstan_(?:[0-9a-f]{8}|oat)_)?\[REDACTED\]|(?:\[REDACTED\]|[^\s"'`,;&)}\]>%]|%(?!26))+)/y;
// A `Cookie:` header is a list of name=value pairs that are all session material.
const COOKIE_VALUE = /[^\r\n"']+/y;

function maskValue(value: string): string {
  const open = /^(?:\\"|"|')/.exec(value)?.[0];
  if (open === undefined) return secretValue(value);
  const closed = value.length >= 2 * open.length && value.endsWith(open);
  return open + secretValue(value.slice(open.length, closed ? -open.length : undefined)) + (closed ? open : '');
}

const unquote = (value: string): string => value.replace(/^(?:\\"|"|')|(?:\\"|"|')$/g, '');

function redactPairs(text: string): string {
  let out = '';
  let last = 0;
  KEY.lastIndex = 0;
  for (let m = KEY.exec(text); m !== null; m = KEY.exec(text)) {
    const raw = m[2] ?? '';
    // After a percent escape the run starts with its two hex digits (`%26token`): drop them.
    const key = m[1] === '' && text.charAt(m.index - 1) === '%' ? raw.replace(/^[0-9A-Fa-f]{2}/, '') : raw;
    const separator = m[3] ?? '';
    // `scheme://user:pass@` is the URL rule's, which keeps the host visible.
    const userinfo = separator === ':' && text.slice(m.index - 3, m.index) === '://';
    if (userinfo || !isSecretKey(key)) continue;
    const re = /cookie/i.test(key) && m[1] === '' && separator === ':' && !/^["']/.test(text.charAt(KEY.lastIndex)) ? COOKIE_VALUE : separator.startsWith('%') ? ENCODED_VALUE : VALUE;
    re.lastIndex = KEY.lastIndex;
    const v = re.exec(text);
    if (v === null) continue;
    const scheme = re === COOKIE_VALUE ? '' : (v[1] ?? '');
    const value = re === COOKIE_VALUE ? v[0] : (v[2] ?? '');
    if (isIdentifier(key, unquote(value))) continue;
    out += text.slice(last, KEY.lastIndex) + scheme + maskValue(value);
    last = re.lastIndex;
    KEY.lastIndex = re.lastIndex;
  }
  return out + text.slice(last);
}

// `--password x`, `--token x`, `--client-secret "x"`: long flags only. A short `-p` is a port
// as often as a password (docker, kubectl port-forward), so it is left alone. A value that
// starts with `-` is the next flag, not a secret.
// Neither may a flag follow `[REDACTED]`: glued to a token (`dXNlcjpwYXNz--password x`) it is
// no flag, and must not become one once a later rule (Basic, here) has replaced that token, or
// a second pass would redact what the first left (redactText is idempotent).
const FLAG = /(?<![\w-]|\[REDACTED\])--([A-Za-z][\w-]*)[ \t]+/g;

function redactFlags(text: string): string {
  return replaceEach(text, FLAG, (m) => {
    if (!isSecretKey(m[1] ?? '')) return undefined;
    VALUE.lastIndex = FLAG.lastIndex;
    const v = VALUE.exec(text);
    const value = v?.[2];
    if (v === null || value === undefined || value.startsWith('-')) return undefined;
    FLAG.lastIndex = VALUE.lastIndex;
    return m[0] + (v[1] ?? '') + maskValue(value);
  });
}

// curl's `-u user:pass`, `--user user:pass` and the proxy's `-U`/`--proxy-user`: the user stays,
// the password goes. `-u 1000:1000` is docker's uid:gid, not a credential.
// Not after `[REDACTED]` either, for the same reason as FLAG.
const USER_FLAG = /(?<![\w-]|\[REDACTED\])(-[uU][ \t]*|--(?:proxy-)?user(?:[ \t]+|=))/g;
const USER_VALUE = /"([^"\n]*)"|'([^'\n]*)'|([^\s"'`]+)/y;
/** A user flag at the very end of a value: it takes the word after the value as its own. */
const TRAILING_USER_FLAG = /(?:-[uU]|--(?:proxy-)?user)$/;

function redactUserFlags(text: string): string {
  return replaceEach(
    text,
    USER_FLAG,
    (m) => {
      USER_VALUE.lastIndex = USER_FLAG.lastIndex;
      const v = USER_VALUE.exec(text);
      const body = v?.[1] ?? v?.[2] ?? v?.[3];
      if (v === null || body === undefined) return undefined;
      const colon = body.indexOf(':');
      // No colon: curl prompts for the password. Either way, a later `-u` inside this value
      // can do no better (its value is a suffix of this one), so the search resumes after it;
      // except a flag ending the value (`-u -u admin:pw`, `-u --user admin:pw`), whose own
      // value is the next word: the search resumes at that flag, a few characters back.
      // (A quoted value ends at its quote, so only an unquoted one can end in a flag.)
      USER_FLAG.lastIndex = USER_VALUE.lastIndex;
      if (colon < 0 || colon === body.length - 1 || /^\d+:\d+$/.test(body)) {
        if (v[3] !== undefined) USER_FLAG.lastIndex -= TRAILING_USER_FLAG.exec(body)?.[0].length ?? 0;
        return undefined;
      }
      const quote = v[1] !== undefined ? '"' : v[2] !== undefined ? "'" : '';
      return `${m[0]}${quote}${body.slice(0, colon + 1)}${REDACTED}${quote}`;
    },
    () => USER_FLAG.lastIndex,
  );
}

const TOKEN_SHAPES: readonly RegExp[] = [
  /\b(?:gh[pousr]_|github_pat_)\w{20,}/g,
  /\b(?:xox[abeoprs]|xapp)-[\w-]{10,}/g, // Slack bot/user tokens, app-level tokens
  /\bAIza[\w-]{35,}/g, // Google API key
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, // AWS access key id
  /\bglpat-[\w-]{20,}/g, // GitLab personal access token
  /\bnpm_[A-Za-z0-9]{36,}/g,
  /\bdckr_pat_[\w-]{20,}/g, // Docker Hub personal access token
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/g, // Stripe secret and restricted keys
];
// The webhook's path is its credential; the host stays so the line still says where it posted.
const SLACK_WEBHOOK = /(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[\w/]+/g;
// Three base64url segments. Each segment is taken whole (atomic), since a dot can only follow
// the whole run; when the dots are missing the match is still the first run, rejected, and
// the search resumes after it instead of at every `eyJ` inside it.
const JWT = /\beyJ(?=([\w-]+))\1(\.(?=([\w-]+))\3\.(?=([\w-]*))\4)?/g;
// OpenAI / Anthropic keys are mixed case; requiring a capital spares kebab-case pod names. A
// later `sk-` inside a rejected run only sees a suffix of it, with no capital either, so the
// search resumes at the end of the run.
const SK_KEY = /\bsk-[\w-]{20,}/g;

const RULES: readonly Rule[] = [
  redactPem,
  (t) => t.replace(CAPSTAN_KEY, (_m, apiKey: string | undefined, oauth: string | undefined) => (apiKey ?? oauth ?? '') + REDACTED),
  (t) => replaceEach(t, BEARER, (m) => (ALREADY_REDACTED.test(m[2] ?? '') || !looksLikeToken(m[2] ?? '') ? undefined : (m[1] ?? '') + secretValue(m[2] ?? '')), afterScheme),
  ...TOKEN_SHAPES.map((re): Rule => (t) => t.replace(re, REDACTED)),
  (t) => t.replace(SLACK_WEBHOOK, `$1${REDACTED}`),
  (t) => replaceEach(t, JWT, (m) => (m[2] === undefined ? undefined : REDACTED)),
  (t) => replaceEach(t, SK_KEY, (m) => (/[A-Z]/.test(m[0]) ? REDACTED : undefined)),
  redactFlags,
  redactUserFlags,
  redactPairs,
  (t) => t.replace(URL_PASSWORD, (_m, head: string, password: string) => `${head}${secretValue(password)}@`),
  (t) => replaceEach(t, BASIC, (m) => (isBasicCredential(m[2] ?? '') ? `${m[1] ?? ''}${REDACTED}` : undefined), afterScheme),
];

/**
 * Redacts a log one line at a time, as a follow sends it. Each line goes through redactText;
 * and since a private key spans lines, every line from its BEGIN line to its END line is hidden
 * (redactText alone sees the BEGIN line only).
 */
export function lineRedactor(): (line: string) => string {
  const begin = new RegExp(PEM_BEGIN.source);
  const end = new RegExp(PEM_END.source);
  let inKey = false;
  return (line) => {
    if (inKey) {
      if (end.test(line)) inKey = false;
      return REDACTED;
    }
    const opened = begin.exec(line);
    if (opened !== null && !end.test(line.slice(opened.index))) inKey = true;
    return redactText(line);
  };
}

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

/**
 * Values under a secret-looking key are hidden whole; the rest get the free-text pass. An
 * identifier under such a name (`api_key_id: "42"`) stays, but only if the free-text pass
 * would leave it alone too, so a second pass finds the same verdict.
 */
export function redactRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => {
      const text = redactText(value);
      const hidden = isSecretKey(key) && !(isIdentifier(key, value) && text === value);
      return [key, hidden ? REDACTED : text];
    }),
  );
}

/**
 * A JSON value as it may leave for an AI provider: every string through the free-text pass,
 * values under secret-looking keys hidden whole (as redactRecord does), and every occurrence of
 * an administrator's extra literal (case-insensitive; AI Guardrails → redaction) replaced too.
 * Extra patterns are literals, never regular expressions, so no stored setting can make this
 * pass super-linear.
 */
export function redactValue(value: unknown, extraLiterals: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return redactLiterals(redactText(value), extraLiterals);
  if (depth > 64 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, extraLiterals, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (typeof item === 'string' && isSecretKey(key)) {
        const text = redactText(item);
        return [key, isIdentifier(key, item) && text === item ? redactLiterals(text, extraLiterals) : REDACTED];
      }
      return [key, redactValue(item, extraLiterals, depth + 1)];
    }),
  );
}

function redactLiterals(text: string, literals: readonly string[]): string {
  let out = text;
  // An escaped literal is a plain string search for the engine: linear, whatever it contains.
  for (const literal of literals) if (literal !== '') out = out.replace(new RegExp(literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'), 'gi'), REDACTED);
  return out;
}
