// The redactor's cost stays linear in its input, whatever the input. Pod logs and audit rows
// are attacker-influenced, and one 255 KB log line once froze the event loop for 28 s, so every
// rule is fed 256 KB built from the characters that would make it backtrack.
//
// The bound is a ratio, not a wall-clock time: redacting may cost at most RATIO_BOUND times a
// plain character loop over the same text, both in process CPU time and each the minimum of a
// few batches, to shed scheduler noise. The linear redactor (about 25 passes, some making a
// match every two characters) measures up to ~300x on the worst of these inputs, flat across
// sizes; a quadratic rule grows fourfold with every fourfold size: the `sk-` and `eyJ-` rules
// before the fix measured ~1,400x at 16 KB, so ~5,600x at 64 KB and ~22,000x at 256 KB. The
// 64 KB step comes first so a quadratic rule fails in a second or two (at 256 KB the old `sk-`
// rule took 28 s a call) instead of stalling the suite.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { redactRecord, redactText } from '../../domain/redaction/redact.ts';

const RATIO_BOUND = 1000;
const SIZES = [64 * 1024, 256 * 1024];
const REPEATS = 3;
const BATCH_MICROS = 2000;

/** The yardstick: touch every character once. */
function plainScan(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) | 0;
  return hash + text.indexOf('\u0000');
}

/**
 * CPU microseconds per call of `run`, calling it until at least `minMicros` have been spent:
 * process CPU time rather than elapsed time, so the slices a busy machine gives to other
 * processes do not count, and a batch of calls, so a 16 KB scan is not lost in timer noise.
 */
function cpuPerCall(run: () => unknown, minMicros: number): number {
  const start = process.cpuUsage();
  let calls = 0;
  let spent = 0;
  do {
    run();
    calls++;
    const used = process.cpuUsage(start);
    spent = used.user + used.system;
  } while (spent < minMicros);
  return spent / calls;
}

function fastest(run: () => unknown, repeats: number): number {
  let best = Infinity;
  for (let i = 0; i < repeats; i++) best = Math.min(best, cpuPerCall(run, BATCH_MICROS));
  return best;
}

/** `head` once, then `unit` repeated up to `size` characters. */
const build = (head: string, unit: string, size: number): string => (head + unit.repeat(Math.ceil(size / unit.length))).slice(0, size);

/** Redaction time over plain-scan time at each size; fails at the first size past the bound. */
function assertLinear(name: string, make: (size: number) => string, redact: (text: string) => unknown = redactText): void {
  for (const size of SIZES) {
    const text = make(size);
    const scan = fastest(() => plainScan(text), REPEATS);
    let ratio = Infinity;
    // A run under the bound settles it; only slow runs are repeated, to rule out a hiccup.
    for (let i = 0; i < REPEATS && ratio > RATIO_BOUND; i++) ratio = Math.min(ratio, fastest(() => redact(text), 1) / scan);
    assert.ok(ratio <= RATIO_BOUND, `${name}: redacting ${size} chars took ${ratio.toFixed(0)}x a plain scan (bound ${RATIO_BOUND}x)`);
  }
}

// What each rule's pattern would retry on: its anchor repeated, its anchor before a long run
// that never completes the shape, and the separators its runs stop at.
const ADVERSARIAL: readonly { name: string; head?: string; unit: string }[] = [
  { name: 'sk- repeated (OpenAI/Anthropic rule without a capital)', unit: 'sk-' },
  { name: 'sk- then a lowercase run', head: 'sk-', unit: 'a' },
  { name: 'eyJ then a run without a dot (JWT)', head: 'eyJ', unit: 'a' },
  { name: 'eyJ- repeated (JWT starts inside one run)', unit: 'eyJ-' },
  { name: 'eyJ. repeated', unit: 'eyJa.' },
  { name: 'JWT with two dots and no third segment end', unit: 'eyJ-.a-' },
  { name: 'password= repeated', unit: 'password=' },
  { name: 'password= and a space repeated', unit: 'password= ' },
  { name: 'password: repeated', unit: 'password:' },
  { name: 'password%3D repeated', unit: 'password%3D' },
  { name: '%26token%3D repeated', unit: '%26token%3D' },
  { name: 'a long [\\w-] run', unit: 'a-b_' },
  { name: 'a long word run', unit: 'a' },
  { name: 'key-looking runs never followed by = (a.)', unit: 'a.' },
  { name: 'key runs followed by spaces but no =', unit: 'abc   ' },
  { name: 'a: repeated', unit: 'a:' },
  { name: 'quoted keys', unit: '"a":' },
  { name: 'escaped quotes', unit: '\\"' },
  { name: 'an unterminated quoted secret', head: 'password="', unit: '\\' },
  { name: 'an unterminated escaped-quote secret', head: 'password=\\"', unit: 'a\\' },
  { name: 'Bearer repeated', unit: 'bearer ' },
  { name: 'Bearer before prose', unit: 'Bearer a ' },
  { name: 'Bearer before a long run of spaces', head: 'bearer', unit: ' ' },
  { name: 'Basic repeated', unit: 'basic ' },
  { name: 'Basic before tokens that are not base64 credentials', unit: 'Basic YWJj ' },
  { name: 'Basic tokens glued by /', unit: 'basic a/' },
  { name: 'URL schemes repeated', unit: 'a://' },
  { name: 'URL userinfo without @', unit: 'a://b:' },
  { name: 'URL password run without @', head: 'x://u:', unit: 'a:' },
  { name: 'Capstan key prefixes repeated', unit: 'capstan_0a1b2c3d_' },
  { name: 'Capstan OAuth prefixes repeated', unit: 'capstan_oat_' },
  { name: 'PEM BEGIN repeated without END', unit: '-----BEGIN PRIVATE KEY-----' },
  { name: 'PEM BEGIN before spaces', head: '-----BEGIN ', unit: ' ' },
  { name: 'GitHub prefixes repeated', unit: 'ghp_' },
  { name: 'GitHub PAT prefixes with dashes', unit: 'github_pat_-' },
  { name: 'Slack prefixes repeated', unit: 'xoxb-' },
  { name: 'Slack app prefixes repeated', unit: 'xapp-' },
  { name: 'Slack webhook paths', unit: 'hooks.slack.com/services/' },
  { name: 'Google prefixes repeated', unit: 'AIza-' },
  { name: 'AWS prefixes repeated', unit: 'AKIA' },
  { name: 'GitLab prefixes repeated', unit: 'glpat-' },
  { name: 'npm prefixes repeated', unit: 'npm_' },
  { name: 'Docker prefixes repeated', unit: 'dckr_pat_' },
  { name: 'Stripe prefixes repeated', unit: 'sk_live_' },
  { name: '--password flags repeated', unit: '--password ' },
  { name: 'flags whose values are flags', unit: '--token -' },
  { name: 'flag-looking runs never followed by a value', unit: '--a-b ' },
  { name: '-u repeated', unit: '-u ' },
  { name: '-u values without a colon', unit: '-ua,' },
  { name: '--user values without a colon', unit: '--user a/' },
  { name: 'Cookie headers repeated', unit: 'Cookie: ' },
];

describe('every redaction rule is linear', () => {
  for (const { name, head = '', unit } of ADVERSARIAL) {
    it(name, () => assertLinear(name, (size) => build(head, unit, size)));
  }

  it('stays linear on generated mixes of the adversarial fragments', () => {
    const units = ADVERSARIAL.map((a) => a.unit);
    const mix = fc.tuple(fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 3 }), fc.constantFrom('', ' ', '-', 'a', '.', '=', '"'));
    fc.assert(
      fc.property(mix, ([parts, joiner]) => assertLinear(JSON.stringify(parts.join(joiner)), (size) => build('', parts.join(joiner) + joiner, size))),
      { numRuns: 40 },
    );
  });

  it('redactRecord is linear too (audit rows are redacted on write and on read)', () => {
    const record = (size: number) => ({ note: build('', 'sk-', size / 2), query: build('', 'eyJ-', size / 2) });
    assertLinear('record', (size) => JSON.stringify(record(size)), (text) => redactRecord(JSON.parse(text) as Record<string, string>));
  });
});
