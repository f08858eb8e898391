// A real OpenID Connect provider (dex, built by scripts/build-dex.sh) for the OIDC sign-in tests:
// a temporary config with in-memory storage, dex's password database holding static users WITH
// groups (v2.45's staticPasswords carry `groups`, which reach the ID token's `groups` claim
// exactly as an LDAP or upstream connector's would), one static client whose redirect URI is the
// agent's callback, the approval screen skipped. dex listens on loopback over http; the issuer is
// http://127.0.0.1:<port>/dex. signIn() drives dex's own login form with fetch, as a browser does.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { freeLoopbackPort } from './ports.ts';

export interface DexUser {
  email: string;
  password: string;
  /** dex's `sub` is derived from this and the connector. */
  userId: string;
  groups: readonly string[];
}

export interface DexClient {
  id: string;
  secret: string;
  redirectUri: string;
}

export interface Dex {
  issuer: string;
  /** dex's log so far (stderr), for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/** The dex binary: built (or found in the cache) by the repository's own script. */
export function dexBinary(): string {
  const out = execFileSync('bash', ['scripts/build-dex.sh'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return out.trim().split('\n').at(-1) ?? '';
}

export async function startDex(users: readonly DexUser[], client: DexClient): Promise<Dex> {
  const bin = dexBinary();
  const dir = mkdtempSync(join(tmpdir(), 'capstan-dex-'));
  const port = await freeLoopbackPort();
  const issuer = `http://127.0.0.1:${port}/dex`;
  // dex reads YAML, of which JSON is a subset.
  const config = {
    issuer,
    storage: { type: 'memory' },
    web: { http: `127.0.0.1:${port}` },
    logger: { level: 'info' },
    oauth2: { skipApprovalScreen: true, responseTypes: ['code'] },
    enablePasswordDB: true,
    staticPasswords: users.map((u) => ({ email: u.email, hash: bcrypt.hashSync(u.password, 10), username: u.userId, userID: u.userId, groups: [...u.groups] })),
    staticClients: [{ id: client.id, secret: client.secret, name: 'Capstan', redirectURIs: [client.redirectUri] }],
  };
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const child: ChildProcess = spawn(bin, ['serve', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  // An object, so the readiness loop reads what the exit handler wrote (a `let` narrows to false).
  const proc = { exited: false };
  child.once('exit', () => {
    proc.exited = true;
  });
  const stop = async () => {
    if (!proc.exited) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready when its discovery document answers with this issuer (bounded: 30 s).
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exited) {
      await stop();
      throw new Error(`dex exited before it was ready:\n${log}`);
    }
    try {
      const res = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(2000) });
      if (res.ok && ((await res.json()) as { issuer?: string }).issuer === issuer) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`dex did not serve its discovery document within 30 s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { issuer, log: () => log, stop };
}

/** A cookie jar of one host, enough for dex's and the agent's cookies in a test. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      // An expired or emptied cookie is deleted.
      if (value === '' || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }
}

/**
 * Drives dex's login as a browser would, from the authorization URL the agent redirected to:
 * follows dex's redirects to its password form, posts the email and password, and follows
 * dex's redirects until one leaves dex (the agent's callback). Answers that callback URL,
 * unvisited, so the test decides which cookies the agent sees. Bounded: 10 hops.
 */
export async function loginAtDex(authorizationUrl: string, email: string, password: string): Promise<string> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  const origin = new URL(authorizationUrl).origin;
  let posted = false;
  for (let hop = 0; hop < 10; hop += 1) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() }, signal: AbortSignal.timeout(5000) });
    jar.store(res);
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url).toString();
      if (!next.startsWith(origin)) return next;
      url = next;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200 || posted) throw new Error(`dex answered ${res.status} at ${url}: ${html.slice(0, 500)}`);
    // dex's password form posts `login` and `password` back to the page it is on.
    const form = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      body: new URLSearchParams({ login: email, password }).toString(),
      signal: AbortSignal.timeout(5000),
    });
    jar.store(form);
    const after = form.headers.get('location');
    if (!after) throw new Error(`dex refused the sign-in (${form.status}): ${(await form.text()).slice(0, 300)}`);
    posted = true;
    url = new URL(after, url).toString();
    if (!url.startsWith(origin)) return url;
  }
  throw new Error(`dex's sign-in did not reach the callback within 10 hops (last: ${url})`);
}
