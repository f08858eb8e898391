// A test reporter for tests/run.ts: it prints nothing while a file runs, then one JSON line with
// the file's counts (tests, not suites) and each failed test's name and first error line. The
// runner adds them up and lists every failure at the very end, where CI's tail shows them.
// Plain JavaScript: node loads reporters before any loader hook, so tsx cannot compile it.

/** @param {unknown} error */
function firstLine(error) {
  const e = /** @type {{ cause?: unknown, message?: unknown }} */ (error ?? {});
  const cause = /** @type {{ message?: unknown }} */ (e.cause ?? e);
  const message = typeof cause.message === 'string' ? cause.message : JSON.stringify(cause);
  return (message ?? '').split('\n')[0].slice(0, 300);
}

/** @param {AsyncIterable<{ type: string, data: { name: string, file?: string, details: { type?: string, error?: { failureType?: string } }, skip?: unknown, todo?: unknown } }>} source */
export default async function* counts(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  /** @type {string[]} */
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A suite passes or fails with its tests; counting it too would count twice.
    if (details.type === 'suite') continue;
    if (event.type === 'test:pass') {
      if (event.data.skip !== undefined || event.data.todo !== undefined) skipped++;
      else passed++;
      continue;
    }
    if (details.error?.failureType === 'subtestsFailed') continue;
    failed++;
    failures.push(`${file ?? '?'} :: ${name} :: ${firstLine(details.error)}`);
  }
  yield `${JSON.stringify({ passed, failed, skipped, failures })}\n`;
}
