import { bcryptHasher } from '../../runtime/auth/password.ts';

/**
 * bcrypt at its lowest cost (4) for the agents and services tests build: the same algorithm and
 * checks, about 100 times cheaper than the production cost every seeded account and sign-in
 * would otherwise pay (tests/unit/password.test.ts proves the agent itself hashes at
 * BCRYPT_COST).
 */
export const TEST_PASSWORDS = bcryptHasher(4);
