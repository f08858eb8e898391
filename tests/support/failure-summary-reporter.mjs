// A test reporter that prints nothing until the run ends, then lists every failed test with its
// file and first error line. CI keeps only the tail of the output, and the TAP stream puts a
// failure's details hundreds of lines above it; this summary is what the tail shows.
export default async function* failureSummary(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    const error = details?.error;
    // A suite fails when a test in it fails; its own entry would only repeat the test's.
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? 'unknown error').split('\n')[0].slice(0, 300);
    failures.push(`# FAILED ${file ?? '?'} :: ${name} :: ${message}`);
  }
  if (failures.length > 0) yield `\n# ${failures.length} failed test(s):\n${failures.join('\n')}\n`;
}
