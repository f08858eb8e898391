// A test reporter that prints nothing until the run ends, then lists every failed test with its
// file and first error line. CI keeps only the tail of the output, and the TAP stream puts a
// failure's details hundreds of lines above it; this summary is what the tail shows.
// Plain JavaScript: node loads reporters before any loader hook, so tsx cannot compile it.

/** @param {unknown} error */
function firstLine(error) {
  const e = /** @type {{ cause?: unknown, message?: unknown }} */ (error ?? {});
  const cause = /** @type {{ message?: unknown }} */ (e.cause ?? e);
  const message = typeof cause.message === 'string' ? cause.message : JSON.stringify(cause);
  return message.split('\n')[0].slice(0, 300);
}

/** @param {AsyncIterable<{ type: string, data: { name: string, file?: string, details: { error?: { failureType?: string } } } }>} source */
export default async function* failureSummary(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A suite fails when a test in it fails; its own entry would only repeat the test's.
    if (details.error?.failureType === 'subtestsFailed') continue;
    failures.push(`# FAILED ${file ?? '?'} :: ${name} :: ${firstLine(details.error)}`);
  }
  if (failures.length > 0) yield `\n# ${failures.length} failed test(s):\n${failures.join('\n')}\n`;
}
