// Issues a license key (docs/licensing.md, "Issuing keys"):
//   node --import tsx scripts/sign-license.ts --private-key ~/.cache/capstan/license-signing-key.pem \
//     --tier pro --licensee "Example Corp" --days 365 [--id lic_123]
// The private key is the issuer's and never enters the repository; the key printed on stdout is
// what `license.key` or Admin → License takes. `--keypair <path>` instead writes a new Ed25519
// private key to <path> (mode 0600, refusing to overwrite) and prints its public key, which is
// what runtime/license/public-key.pem (or CAPSTAN_LICENSE_PUBLIC_KEY) must hold.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { signLicense } from '../runtime/license/keys.ts';
import { LicensePayload, LicenseTier } from '../schema/license.ts';

const DAY_MS = 24 * 3600 * 1000;

function fail(message: string): never {
  process.stderr.write(`sign-license: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    'private-key': { type: 'string' },
    tier: { type: 'string' },
    licensee: { type: 'string' },
    days: { type: 'string' },
    id: { type: 'string' },
    keypair: { type: 'string' },
  },
});

if (values.keypair !== undefined) {
  if (existsSync(values.keypair)) fail(`${values.keypair} exists; not overwriting a signing key`);
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  mkdirSync(dirname(values.keypair), { recursive: true });
  writeFileSync(values.keypair, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  process.stdout.write(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  process.exit(0);
}

const path = values['private-key'] ?? fail('--private-key <path> is required');
const tier = v.safeParse(LicenseTier, values.tier);
if (!tier.success) fail(`--tier must be one of ${LicenseTier.options.join(', ')}`);
const days = Number(values.days);
if (!Number.isInteger(days) || days < 1 || days > 3650) fail('--days must be a whole number of days, 1 to 3650');
const now = new Date();
const payload = v.safeParse(LicensePayload, {
  id: values.id ?? `lic_${randomUUID()}`,
  tier: tier.output,
  licensee: values.licensee ?? fail('--licensee is required'),
  issued_at: now.toISOString(),
  expires_at: new Date(now.getTime() + days * DAY_MS).toISOString(),
});
if (!payload.success) fail(`payload: ${payload.issues[0].message}`);
process.stdout.write(`${signLicense(payload.output, readFileSync(path, 'utf8'))}\n`);
