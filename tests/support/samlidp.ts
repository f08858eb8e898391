// A real SAML 2.0 identity provider for the SAML sign-in tests: crewjam/saml's samlidp
// (scripts/build-samlidp.sh builds it from the Go module proxy; `make test` runs that) on
// loopback with a key and self-signed certificate made with openssl for this run, signing
// assertions with RSA-SHA256. Users and the service provider are created over samlidp's own
// HTTP API (PUT /users/{id}, PUT /services/{id}). `signIn` plays the browser: it follows the
// agent's redirect to the IdP, posts the IdP's login form and returns the auto-submitted form
// the IdP answers with (SAMLResponse and RelayState for the agent's ACS).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface IdpUser {
  name: string;
  password: string;
  email: string;
  groups?: readonly string[];
}

export interface IdpPost {
  /** Where the IdP's form posts (the agent's ACS URL from its metadata). */
  action: string;
  SAMLResponse: string;
  RelayState: string;
}

export interface SamlIdp {
  url: string;
  /** The IdP's metadata XML (its SSO URL and signing certificate). */
  metadata(): Promise<string>;
  certPem: string;
  putUser(user: IdpUser): Promise<void>;
  /** Registers a service provider by its metadata XML. */
  putService(id: string, metadataXml: string): Promise<void>;
  /** Follows `authnUrl` (the agent's redirect) to the IdP, signs in there, and returns what the IdP posts back. */
  signIn(authnUrl: string, user: string, password: string): Promise<IdpPost>;
  /** An IdP-initiated (unsolicited) response for the service provider `spEntityId`: no AuthnRequest, no InResponseTo. */
  unsolicited(spEntityId: string, user: string, password: string): Promise<IdpPost>;
  stop(): Promise<void>;
}

const attr = (html: string, name: string): string => {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (m?.[1] === undefined) throw new Error(`the IdP's page has no ${name}: ${html.slice(0, 500)}`);
  return unescapeHtml(m[1]);
};
const unescapeHtml = (s: string) => s.replace(/&#43;/g, '+').replace(/&#34;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

export function samlIdpBinary(): string {
  return execFileSync('bash', [join(import.meta.dirname, '../../scripts/build-samlidp.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').at(-1) ?? '';
}

export interface IdpOptions {
  /** The library's default is rsa-sha1; the IdP Capstan accepts signs with rsa-sha256. */
  signatureMethod?: 'rsa-sha256' | 'rsa-sha1';
  /** Go duration shifting the IdP's clock (`-1h`: every assertion it issues has already expired). */
  clockOffset?: string;
}

export async function startSamlIdp(options: IdpOptions = {}): Promise<SamlIdp> {
  const bin = samlIdpBinary();
  const dir = mkdtempSync(join(tmpdir(), 'capstan-samlidp-'));
  const key = join(dir, 'idp.key');
  const cert = join(dir, 'idp.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=capstan-test-idp', '-sha256'], { stdio: 'ignore' });
  const child: ChildProcess = spawn(bin, ['-addr', '127.0.0.1:0', '-key', key, '-cert', cert, '-signature-method', options.signatureMethod ?? 'rsa-sha256', '-clock-offset', options.clockOffset ?? '0s'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  // The IdP prints its URL once it listens (it chose a free port itself: no race for one).
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`samlidp did not start in 20 s: ${stderr}`)), 20_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`samlidp exited (${code}): ${stderr}`));
    });
  });
  const put = async (path: string, body: string) => {
    const res = await fetch(url + path, { method: 'PUT', body });
    if (res.status >= 300) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
  };
  const sessionFor = async (user: string, password: string, extra: Record<string, string>): Promise<string> => {
    const login = await fetch(`${url}/login`, { method: 'POST', body: new URLSearchParams({ user, password, ...extra }), redirect: 'manual' });
    const session = /session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    if (!session) throw new Error(`the IdP refused ${user}'s sign-in (${login.status}): ${(await login.text()).slice(0, 300)}`);
    return session;
  };
  const postedForm = async (res: Response): Promise<IdpPost> => {
    const page = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error(`the IdP did not answer with a form (${res.status}): ${page.slice(0, 500)}`);
    return { action: unescapeHtml(action), SAMLResponse: attr(page, 'SAMLResponse'), RelayState: attr(page, 'RelayState') };
  };
  return {
    url,
    certPem: readFileSync(cert, 'utf8'),
    async metadata() {
      return (await fetch(`${url}/metadata`)).text();
    },
    putUser: (user) => put(`/users/${user.name}`, JSON.stringify({ name: user.name, password: user.password, email: user.email, groups: user.groups ?? [] })),
    putService: (id, xml) => put(`/services/${id}`, xml),
    async signIn(authnUrl, user, password) {
      // No IdP session: the IdP answers the AuthnRequest with its login form.
      const form = await (await fetch(authnUrl, { redirect: 'manual' })).text();
      // samlidp v0.5.1's form posts to /login, which only starts the IdP session (a cookie);
      // the browser then presents the AuthnRequest again and gets the auto-submitted response.
      const session = await sessionFor(user, password, { SAMLRequest: attr(form, 'SAMLRequest'), RelayState: attr(form, 'RelayState') });
      return postedForm(await fetch(authnUrl, { headers: { cookie: `session=${session}` }, redirect: 'manual' }));
    },
    async unsolicited(spEntityId, user, password) {
      await put('/shortcuts/capstan', JSON.stringify({ name: 'capstan', service_provider: spEntityId, relay_state: '' }));
      const session = await sessionFor(user, password, {});
      return postedForm(await fetch(`${url}/login/capstan`, { headers: { cookie: `session=${session}` }, redirect: 'manual' }));
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
