// The shared redactor: every credential shape it claims to cover is gone from the output while
// the words around it survive, ordinary log lines pass through untouched, and (checked on
// 100,000 generated inputs) it never throws and redacting twice changes nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { lineRedactor, REDACTED, redactRecord, redactText } from '../../domain/redaction/redact.ts';

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

// One row per credential shape (Prometheus api_test.go style): `want` is the whole output, so a
// row pins both that the secret is gone and that the words around it survive.
const OAUTH_TOKEN = 'capstan_oat_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0LWdhcnBseQ';
const SHAPES: readonly { name: string; input: string; want: string; secret: string }[] = [
  { name: 'Capstan OAuth access token', input: `mcp call with ${OAUTH_TOKEN} failed`, want: `mcp call with capstan_oat_${REDACTED} failed`, secret: OAUTH_TOKEN.slice(12) },
  { name: 'Capstan OAuth token as a bearer', input: `Authorization: Bearer ${OAUTH_TOKEN}`, want: `Authorization: Bearer capstan_oat_${REDACTED}`, secret: OAUTH_TOKEN.slice(12) },
  { name: 'Capstan OAuth token with base64url - and _', input: 'tok capstan_oat_ab-cd_ef-gh_ij end', want: `tok capstan_oat_${REDACTED} end`, secret: 'ab-cd_ef-gh_ij' },
  { name: 'Capstan API key', input: 'key capstan_0a1b2c3d_abcdefghijklmnopqrstuvwxyz234567 end', want: `key capstan_0a1b2c3d_${REDACTED} end`, secret: 'abcdefghijklmnopqrstuvwxyz234567' },
  { name: 'Stripe live secret key', input: 'charge with sk_live_51HqLyjWDarjtT1zdp7dcXwY2 ok', want: `charge with ${REDACTED} ok`, secret: '51HqLyjWDarjtT1zdp7dcXwY2' },
  { name: 'Stripe restricted key', input: 'charge with rk_live_51HqLyjWDarjtT1zdp7dcXwY2 ok', want: `charge with ${REDACTED} ok`, secret: '51HqLyjWDarjtT1zdp7dcXwY2' },
  { name: 'Stripe test key', input: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', want: REDACTED, secret: '4eC39HqLyjWDarjtT1zdp7dc' },
  { name: 'GitLab personal access token', input: 'clone using glpat-xxxxxxxxxxxxxxxxxxxx1 then', want: `clone using ${REDACTED} then`, secret: 'xxxxxxxxxxxxxxxxxxxx1' },
  { name: 'npm token', input: '//registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789 x', want: `//registry.npmjs.org/:_authToken ${REDACTED} x`, secret: 'abcdefghijklmnopqrstuvwxyz0123456789' },
  { name: 'Docker personal access token', input: 'docker login -p dckr_pat_2b3e36beeb386dfdaacb9b46004 ok', want: `docker login -p ${REDACTED} ok`, secret: '2b3e36beeb386dfdaacb9b46004' },
  { name: 'Slack app-level token', input: 'socket mode xapp-1-A0123456789-1234567890123-abcdef0123 up', want: `socket mode ${REDACTED} up`, secret: 'A0123456789-1234567890123-abcdef0123' },
  {
    name: 'Slack webhook URL keeps the host',
    input: 'posting to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX now',
    want: `posting to https://hooks.slack.com/services/${REDACTED} now`,
    secret: 'XXXXXXXXXXXXXXXXXXXXXXXX',
  },
  {
    name: 'Azure storage connection string AccountKey',
    input: 'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net',
    want: `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${REDACTED};EndpointSuffix=core.windows.net`,
    secret: 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq',
  },
  { name: 'ENCRYPTION_KEY=', input: 'ENCRYPTION_KEY=0123456789abcdef0123456789abcdef boot', want: `ENCRYPTION_KEY=${REDACTED} boot`, secret: '0123456789abcdef0123456789abcdef' },
  { name: 'SECRETKEY=', input: 'SECRETKEY=hunter2hunter2 boot', want: `SECRETKEY=${REDACTED} boot`, secret: 'hunter2hunter2' },
  { name: 'DB_PASS=', input: 'env DB_PASS=correct-horse x=1', want: `env DB_PASS=${REDACTED} x=1`, secret: 'correct-horse' },
  { name: 'dbPass: in camel case', input: 'dbPass: correct-horse', want: `dbPass: ${REDACTED}`, secret: 'correct-horse' },
  { name: 'PGPASS=', input: 'PGPASS=correct-horse', want: `PGPASS=${REDACTED}`, secret: 'correct-horse' },
  { name: 'DB_PW=', input: 'DB_PW=correct-horse', want: `DB_PW=${REDACTED}`, secret: 'correct-horse' },
  { name: 'signing_key: in YAML', input: 'signing_key: c2lnbmluZy1rZXk', want: `signing_key: ${REDACTED}`, secret: 'c2lnbmluZy1rZXk' },
  { name: 'MY_APP_CREDENTIALS=', input: 'MY_APP_CREDENTIALS=abc:def', want: `MY_APP_CREDENTIALS=${REDACTED}`, secret: 'abc:def' },
  { name: '--password value', input: 'exec mysql --password hunter2 --host db', want: `exec mysql --password ${REDACTED} --host db`, secret: 'hunter2' },
  { name: '--password=value', input: 'exec mysql --password=hunter2 --host db', want: `exec mysql --password=${REDACTED} --host db`, secret: 'hunter2' },
  { name: '--token value', input: 'kubectl --token eyJhbGciOi0123 get pods', want: `kubectl --token ${REDACTED} get pods`, secret: 'eyJhbGciOi0123' },
  { name: '--client-secret "quoted value"', input: 'login --client-secret "a b c" done', want: `login --client-secret "${REDACTED}" done`, secret: 'a b c' },
  { name: 'curl -u user:pass', input: 'curl -u admin:hunter2 https://api', want: `curl -u admin:${REDACTED} https://api`, secret: 'hunter2' },
  { name: 'curl -uuser:pass', input: 'curl -uadmin:hunter2 https://api', want: `curl -uadmin:${REDACTED} https://api`, secret: 'hunter2' },
  { name: "curl --user 'user:pass'", input: "curl --user 'admin:hunter 2' https://api", want: `curl --user 'admin:${REDACTED}' https://api`, secret: 'hunter 2' },
  { name: 'curl --user=user:pass', input: 'curl --user=admin:hunter2 https://api', want: `curl --user=admin:${REDACTED} https://api`, secret: 'hunter2' },
  { name: 'curl --proxy-user user:pass', input: 'curl --proxy-user admin:hunter2 https://api', want: `curl --proxy-user admin:${REDACTED} https://api`, secret: 'hunter2' },
  // A rejected value that is itself a flag (`-u -u`, `-u --user`): the flag at its end still takes the next word.
  { name: 'curl -u after a flag-shaped value', input: 'x -u -u admin:hunter2 https://api', want: `x -u -u admin:${REDACTED} https://api`, secret: 'hunter2' },
  { name: 'curl --user after -u', input: 'x -u --user admin:hunter2 https://api', want: `x -u --user admin:${REDACTED} https://api`, secret: 'hunter2' },
  { name: 'percent-encoded password%3D in a query', input: 'path=/x query=q=password%3Dhunter2&limit=5', want: `path=/x query=q=password%3D${REDACTED}&limit=5`, secret: 'hunter2' },
  { name: 'percent-encoded token%3D after %26', input: 'q=a%26token%3Ds3cr3t%26b%3D1&c=2', want: `q=a%26token%3D${REDACTED}%26b%3D1&c=2`, secret: 's3cr3t' },
  { name: 'percent-encoded api_key%3D after %26', input: 'next=%2Fcb%3Fx%3D1%26api_key%3Ds3cr3t', want: `next=%2Fcb%3Fx%3D1%26api_key%3D${REDACTED}`, secret: 's3cr3t' },
];

// Shapes that look close but are not credentials, and must come through unchanged.
const NOT_SECRETS: readonly { name: string; input: string }[] = [
  { name: 'an audit detail naming an API key by id', input: 'api_key_id=42 path=/pods' },
  { name: 'a uuid under an *_id name', input: 'access_key_id: 550e8400-e29b-41d4-a716-446655440000' },
  { name: 'an opaque id under an *_id name', input: 'api_key_id="app_Zm9vYmFyYmF6" ok' },
  { name: 'OAuth grant and client names', input: 'oauth_grant=grant_AbCdEfGh oauth_client=Claude' },
  { name: 'controller-runtime object keys', input: 'Reconciling key="default/web" controller=deployment' },
  { name: 'a cache key', input: 'cache_key=pods/default sort_key=name public_key=ssh-ed25519' },
  { name: 'bypass and compass', input: 'bypass=true compass=north' },
  { name: 'docker -u uid:gid', input: 'docker run -u 1000:1000 alpine' },
  { name: '-u without a colon', input: 'ps -u root; sort -u names.txt' },
  { name: 'a non-secret flag', input: 'kubectl get pods --namespace default --output wide' },
  { name: 'a secret flag followed by another flag', input: 'vault login --token --method=oidc' },
  { name: 'token counts', input: 'max_tokens=1024 input_tokens=57' },
];

describe('redactText covers every documented shape (table)', () => {
  for (const { name, input, want, secret } of SHAPES) {
    it(name, () => {
      const got = redactText(input);
      assert.equal(got, want);
      assert.ok(!got.includes(secret), `leaked ${JSON.stringify(secret)}`);
      assert.equal(redactText(got), got, 'idempotent');
    });
  }
  for (const { name, input } of NOT_SECRETS) {
    it(`leaves alone: ${name}`, () => assert.equal(redactText(input), input));
  }

  it('removes each shape wherever it sits in generated text', () => {
    // Spaces fence the sample so the text around it cannot glue onto it and change its shape.
    const filler = fc.string({ unit: fc.constantFrom(...'ab Z9=:;,&/."\'-_\t'.split('')), maxLength: 40 });
    fc.assert(
      fc.property(fc.constantFrom(...SHAPES), filler, filler, ({ input, secret }, before, after) => {
        fc.pre(!before.includes(secret) && !after.includes(secret));
        const out = redactText(`${before} ${input} ${after}`);
        assert.ok(!out.includes(secret), `leaked ${JSON.stringify(secret)} in ${JSON.stringify(out)}`);
        assert.equal(redactText(out), out);
      }),
      { numRuns: 20_000 },
    );
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

  it('is idempotent on the counterexamples fast-check found', () => {
    const found = [
      'password=-u -u :#', // a -u whose value is another -u
      'Basic dXNlcjpwYXNz--password !', // a flag glued to a token a later rule redacts
      'Basic dXNlcjpwYXNz-u a:b',
    ];
    for (const input of found) {
      const once = redactText(input);
      assert.equal(redactText(once), once, input);
    }
  });

  it('gets through a megabyte of flag-shaped values without rescanning them', () => {
    const input = 'x -u'.concat(' -u=-u=-u=-u'.repeat(100_000));
    assert.ok(input.length > 1_000_000);
    assert.equal(redactText(input), input);
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
    'capstan_oat_', 'sk_live_', 'glpat-', 'xapp-', 'hooks.slack.com/services/', '--password ', '--token', '-u ', '--user ', 'a:b', '1000:1000', '%3D', '%26',
    'api_key_id', '_id', '42', 'app_Zm9vYmFy', 'DB_PASS', 'AccountKey', 'ENCRYPTION_KEY', 'eyJ-', 'x.y',
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

  it('keeps an identifier under a secret-looking name: {api_key_id: "42"} is not a secret', () => {
    const input = { api_key_id: '42', apiKeyId: '550e8400-e29b-41d4-a716-446655440000', oauth_grant: 'grant_AbCdEfGhIjKl', oauth_client: 'Claude Desktop', access_key_id: 'app_Zm9vYmFyYmF6' };
    assert.deepEqual(redactRecord(input), input);
  });

  it('still hides api_key, apikey, api_key_secret and session ids, and ids that are not id-shaped', () => {
    const input = { api_key: '42', apikey: 'abc', api_key_secret: 'abc', session_id: '550e8400-e29b-41d4-a716-446655440000', secret_id: '42', api_key_id: 'hunter2 hunter2', token_id: 'capstan_0a1b2c3d_abcdefghijklmnopqrstuvwxyz234567' };
    const out = redactRecord(input);
    for (const key of Object.keys(input)) assert.equal(out[key], REDACTED, key);
    assert.deepEqual(redactRecord(out), out);
  });

  it('treats a __proto__ key as plain data', () => {
    const input = JSON.parse('{"__proto__":"token=abc123"}') as Record<string, string>;
    const out = redactRecord(input);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, `token=${REDACTED}`);
  });
});

describe('lineRedactor: a log redacted one line at a time, as a follow sends it', () => {
  const rows: { name: string; lines: string[]; want: string[] }[] = [
    { name: 'plain lines pass', lines: ['starting', 'ready'], want: ['starting', 'ready'] },
    { name: 'a secret on one line', lines: ['password=hunter2 ok'], want: [`password=${REDACTED} ok`] },
    {
      name: "a private key's body, between its BEGIN and END lines, is hidden",
      lines: ['loading key', '-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA7xq', 'c2VjcmV0', '-----END RSA PRIVATE KEY-----', 'ready'],
      want: ['loading key', REDACTED, REDACTED, REDACTED, REDACTED, 'ready'],
    },
    { name: 'a key whole on one line ends there', lines: ['-----BEGIN PRIVATE KEY-----abc-----END PRIVATE KEY-----', 'next'], want: [REDACTED, 'next'] },
    { name: 'a public key is no secret', lines: ['-----BEGIN PUBLIC KEY-----', 'MIIBIjANBgkq', '-----END PUBLIC KEY-----'], want: ['-----BEGIN PUBLIC KEY-----', 'MIIBIjANBgkq', '-----END PUBLIC KEY-----'] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const redact = lineRedactor();
      assert.deepEqual(row.lines.map(redact), row.want);
    });
  }
});
