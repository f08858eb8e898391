// The shared redactor: every credential shape it claims to cover is gone from the output while
// the words around it survive, ordinary log lines pass through untouched, and (checked on
// 100,000 generated inputs) it never throws and redacting twice changes nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { REDACTED, redactRecord, redactText } from '../../domain/redaction/redact.ts';

const RUNS = 100_000;

/** Each secret is gone, each piece of context is still there, and a second pass is a no-op. */
function assertRedacted(input: string, secrets: readonly string[], kept: readonly string[]): string {
  const output = redactText(input);
  for (const secret of secrets) assert.ok(!output.includes(secret), `leaked ${JSON.stringify(secret)} in ${JSON.stringify(output)}`);
  for (const context of kept) assert.ok(output.includes(context), `lost ${JSON.stringify(context)} from ${JSON.stringify(output)}`);
  assert.ok(output.includes(REDACTED), `no marker in ${JSON.stringify(output)}`);
  assert.equal(redactText(output), output);
  return output;
}

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe('redactText removes each kind of secret and keeps the surrounding text', () => {
  it('redacts a Bearer token but keeps the header name and the word Bearer', () => {
    const out = assertRedacted('GET /api Authorization: Bearer abc123.def456-ghi', ['abc123', 'def456'], ['GET /api', 'Authorization: Bearer ']);
    assert.equal(out, `GET /api Authorization: Bearer ${REDACTED}`);
    assertRedacted('retrying with bearer Zm9vYmFyYmF6cXV4cXV1eA== now', ['Zm9vYmFyYmF6cXV4cXV1eA'], ['retrying with bearer ', ' now']);
  });

  it('redacts Basic credentials whether or not an Authorization key precedes them', () => {
    const token = Buffer.from('admin:hunter2').toString('base64');
    assertRedacted(`curl -H "Authorization: Basic ${token}" https://api`, [token], ['curl -H "Authorization: Basic ', 'https://api']);
    assertRedacted(`upstream sent Basic ${token} and failed`, [token], ['upstream sent Basic ', ' and failed']);
  });

  it('redacts the password in a URL and keeps scheme, user and host', () => {
    const out = assertRedacted('dialing postgres://app:s3cr3t-pw@db.internal:5432/app?sslmode=require', ['s3cr3t-pw'], ['dialing postgres://app:', '@db.internal:5432/app?sslmode=require']);
    assert.equal(out, `dialing postgres://app:${REDACTED}@db.internal:5432/app?sslmode=require`);
    assertRedacted('redis://:cachepass@cache:6379/0', ['cachepass'], ['redis://:', '@cache:6379/0']);
  });

  it('redacts only the value of key=value and key: value pairs with a secret-looking key', () => {
    const out = assertRedacted('login user=bob password=hunter2 attempt=3', ['hunter2'], ['login user=bob password=', ' attempt=3']);
    assert.equal(out, `login user=bob password=${REDACTED} attempt=3`);
    assertRedacted('DB_PASSWORD: pa55word', ['pa55word'], ['DB_PASSWORD: ']);
    assertRedacted('GITHUB_TOKEN=abcdef123456 CI=true', ['abcdef123456'], ['GITHUB_TOKEN=', 'CI=true']);
    assertRedacted('x-api-key: k-42-abcdef', ['k-42-abcdef'], ['x-api-key: ']);
    assertRedacted('?client_secret=xyz789&grant_type=client_credentials', ['xyz789'], ['client_secret=', '&grant_type=client_credentials']);
    for (const key of ['passwd', 'pwd', 'secret', 'token', 'api_key', 'apikey', 'api-key', 'access_key', 'secret_key', 'private_key', 'auth', 'credential', 'credentials', 'session', 'cookie', 'db_password', 'apiKey', 'SESSION_ID']) {
      assertRedacted(`${key}=v4lue-Of-${key} next`, [`v4lue-Of-${key}`], [`${key}=`, ' next']);
    }
  });

  it('redacts JSON string values under secret keys, including JSON escaped inside JSON', () => {
    const out = assertRedacted('{"user":"bob","password":"hunter2","retries":3}', ['hunter2'], ['"user":"bob"', '"password":"', '"retries":3']);
    assert.equal(out, `{"user":"bob","password":"${REDACTED}","retries":3}`);
    assertRedacted('{"msg":"{\\"apiKey\\": \\"abc-777\\"}"}', ['abc-777'], ['{"msg":"{\\"apiKey\\": \\"']);
  });

  it('redacts a whole Cookie header, since every pair in it is session material', () => {
    assertRedacted('Cookie: capstan_session=abc123; theme=dark', ['abc123', 'theme=dark'], ['Cookie: ']);
  });

  it('redacts JWTs anywhere in text', () => {
    assertRedacted(`issued ${JWT} for admin`, [JWT, 'dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk'], ['issued ', ' for admin']);
  });

  it('redacts AWS access key ids and secret access keys that follow a key name', () => {
    assertRedacted('using AKIAIOSFODNN7EXAMPLE in us-east-1', ['AKIAIOSFODNN7EXAMPLE'], ['using ', ' in us-east-1']);
    assertRedacted('sts ASIAY34FZKBOKMUTVV7A ok', ['ASIAY34FZKBOKMUTVV7A'], ['sts ', ' ok']);
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    assertRedacted(`aws_secret_access_key = ${secret}`, [secret, 'wJalrXUtnFEMI'], ['aws_secret_access_key = ']);
    assertRedacted(`{"SecretAccessKey": "${secret}"}`, [secret], ['{"SecretAccessKey": "']);
  });

  it('redacts GitHub, Slack, Google and OpenAI/Anthropic style tokens', () => {
    const tokens = [
      'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
      'gho_16C7e42F292c6912E7710c838347Ae178B4a',
      'ghs_16C7e42F292c6912E7710c838347Ae178B4a',
      'ghu_16C7e42F292c6912E7710c838347Ae178B4a',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
      'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp',
      'xoxp-123456789012-abcdefghij',
      'AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe',
      'sk-proj-Ab3dEf6hIj9kLmNoPqRsTuVwXyZ012345',
      'sk-ant-api03-Ab3dEf6hIj9kLmNoPqRsTuVwXyZ0123456789',
    ];
    for (const token of tokens) assertRedacted(`pushed with ${token} today`, [token], ['pushed with ', ' today']);
  });

  it('redacts a Capstan API key secret but keeps its public prefix', () => {
    const key = 'capstan_0a1b2c3d_abcdefghijklmnopqrstuvwxyz234567';
    const out = assertRedacted(`request with ${key} denied`, ['abcdefghijklmnopqrstuvwxyz234567'], ['request with capstan_0a1b2c3d_', ' denied']);
    assert.equal(out, `request with capstan_0a1b2c3d_${REDACTED} denied`);
    assertRedacted(`Authorization: Bearer ${key}`, ['abcdefghijklmnopqrstuvwxyz234567'], ['Authorization: Bearer capstan_0a1b2c3d_']);
    assertRedacted(`api_key="${key}"`, ['abcdefghijklmnopqrstuvwxyz234567'], ['api_key="capstan_0a1b2c3d_']);
  });

  it('replaces a multi-line PEM private key block with a single marker', () => {
    const pem = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA1b2c3d4e5f6', 'g7h8i9j0k1l2m3n4o5p6q7r8s9t0', '-----END RSA PRIVATE KEY-----'].join('\n');
    const out = assertRedacted(`loaded key:\n${pem}\ndone`, ['MIIEowIBAAKCAQEA1b2c3d4e5f6', 'g7h8i9j0', 'BEGIN', 'END RSA'], ['loaded key:\n', '\ndone']);
    assert.equal(out, `loaded key:\n${REDACTED}\ndone`);
    assertRedacted('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', ['b3BlbnNzaC1rZXktdjEAAAAA'], []);
  });

  it('hides everything after a PEM header whose END was cut off by a log tail', () => {
    assertRedacted('tail: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC', ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'], ['tail: ']);
  });
});

describe('redactText leaves ordinary text alone', () => {
  it('does not change log lines and event messages without credentials', () => {
    const lines = [
      'GET /healthz 200 3ms',
      'connecting to postgres at db:5432',
      'token bucket refilled',
      'Bearer token missing from request',
      'Basic auth enabled for /metrics',
      'max_tokens=1024 input_tokens=57 author=alice',
      'Back-off restarting failed container app in pod web-7d9f8b6c5-x2x4z_default',
      'MountVolume.SetUp failed for volume "default-token-abcde" : secret "default-token-abcde" not found',
      'Successfully pulled image "ghcr.io/acme/api:1.4.2" in 2.1s',
      'level=info msg="request served" status=200 path=/api/v1/pods?limit=50',
      'https://kubernetes.default.svc:443/api/v1/namespaces/default/pods',
      'scheduled sk-learn-worker-7d9f8b6c5-abcde onto node-1',
      '',
    ];
    for (const line of lines) assert.equal(redactText(line), line);
  });
});

describe('redactText is idempotent and total', () => {
  it('returns the same text when run on its own output', () => {
    const messy = `password="a b" token: Bearer ${JWT} url=https://u:p@h/x Cookie: a=b; c=d\n{"secret":"s"} capstan_0a1b2c3d_abcdefghijklmnopqrstuvwxyz234567`;
    const once = redactText(messy);
    assert.equal(redactText(once), once);
    assert.equal(redactText(REDACTED), REDACTED);
  });

  it('gets through a megabyte of key=value fragments', () => {
    const input = 'a= password= token=x '.repeat(50_000);
    assert.ok(input.length > 1_000_000);
    const out = redactText(input);
    assert.ok(!out.includes('token=x'));
    assert.ok(redactText('a='.repeat(600_000)).startsWith('a=a='));
  });

  const fragments = [
    'password', 'token', 'Cookie', 'auth', 'api_key', '=', ':', ': ', ' ', '\n', '"', "'", '\\"', '\\', ',', ';', '&', '@', '/', '://', '.', '-', '_',
    '[', ']', REDACTED, 'capstan_0a1b2c3d_', 'abc', 'XYZ', '123', 'Bearer ', 'Basic ', 'dXNlcjpwYXNz', '==', 'eyJ', 'eyJa.b.c', 'AKIAIOSFODNN7EXAMPLE',
    'ghp_abcdefghijklmnopqrstuvwxyz', 'xoxb-', 'AIza', 'sk-', 'sk-abcdefghijklmnopqrstuvwxyzA', 'x://u:p@h', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----',
  ];
  // Plain random strings rarely hit a rule, so half the inputs are spliced from rule fragments.
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.array(fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 3 })), { maxLength: 25 }).map((parts) => parts.join('')),
  );

  it('never throws and is idempotent on arbitrary strings', () => {
    fc.assert(
      fc.property(text, (input) => {
        const once = redactText(input);
        assert.equal(redactText(once), once);
      }),
      { numRuns: RUNS },
    );
  });

  it('never lets a password=<secret> value through, whatever text surrounds it', () => {
    const line = fc.string({ unit: 'binary' }).map((s) => s.replace(/[\r\n\u2028\u2029]/g, ' '));
    const secret = fc.stringMatching(/^[A-Za-z0-9]{12,40}$/);
    fc.assert(
      fc.property(line, secret, line, (before, value, after) => {
        fc.pre(!before.includes(value) && !after.includes(value));
        const out = redactText(`${before} password=${value} ${after}`);
        assert.ok(!out.includes(value), JSON.stringify(out));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('redactRecord', () => {
  it('hides values under secret keys whole and free-text-redacts the rest', () => {
    const input = { username: 'bob', password: 'hunter2 with spaces', GITHUB_TOKEN: 'x', note: `sent Bearer ${JWT}`, detail: 'GET /healthz 200 3ms' };
    const out = redactRecord(input);
    assert.deepEqual(out, { username: 'bob', password: REDACTED, GITHUB_TOKEN: REDACTED, note: `sent Bearer ${REDACTED}`, detail: 'GET /healthz 200 3ms' });
    assert.deepEqual(redactRecord(out), out);
    assert.equal(input.password, 'hunter2 with spaces');
  });

  it('treats a __proto__ key as plain data', () => {
    const input = JSON.parse('{"__proto__":"token=abc123"}') as Record<string, string>;
    const out = redactRecord(input);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, `token=${REDACTED}`);
  });
});
