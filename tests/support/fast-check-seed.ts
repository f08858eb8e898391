// The property tests' randomness. Under CI (CI set) every fast-check property runs from one
// fixed seed, so the suite's verdict does not depend on which inputs a run happened to draw;
// elsewhere each run draws a new seed and explores (fast-check prints the seed and the shrunk
// counterexample of a failure, which then becomes a table row). FC_SEED=<n> replays one.
import fc from 'fast-check';

const FIXED_CI_SEED = 20261124;
const asked = process.env.FC_SEED;
const seed = asked !== undefined && asked !== '' ? Number(asked) : process.env.CI ? FIXED_CI_SEED : undefined;
if (seed !== undefined) {
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer (got ${asked ?? ''})`);
  fc.configureGlobal({ seed });
}
