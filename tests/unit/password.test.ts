// Password hashing (runtime/auth/password.ts): bcrypt at BCRYPT_COST unless a test asks for
// less. That the real CLI agent stores its accounts at BCRYPT_COST is proved on its own data
// dir by tests/integration/copilot-request-key.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BCRYPT_COST, bcryptHasher, isBcryptHash } from '../../runtime/auth/password.ts';
import { TEST_PASSWORDS } from '../support/passwords.ts';

it('hashes at BCRYPT_COST (12) by default, and the tests ask for cost 4 only through their own hasher', async () => {
  assert.equal(BCRYPT_COST, 12);
  const stored = await bcryptHasher().hash('correct horse battery staple');
  assert.ok(isBcryptHash(stored));
  assert.match(stored, /^\$2[aby]\$12\$/);
  assert.match(await TEST_PASSWORDS.hash('x'), /^\$2[aby]\$04\$/);
});

it('verifies the right password only, and answers false for an account with no hash', async () => {
  const hasher = bcryptHasher(4);
  const stored = await hasher.hash('s3cret password');
  assert.equal(await hasher.verify('s3cret password', stored), true);
  assert.equal(await hasher.verify('s3cret passworD', stored), false);
  assert.equal(await hasher.verify('s3cret password', null), false);
  // A hash of another cost (a viewer password supplied as a bcrypt hash) still verifies.
  assert.equal(await hasher.verify('s3cret password', await bcryptHasher(5).hash('s3cret password')), true);
});
