// A real SAML 2.0 identity provider with single logout for the SAML logout tests: Debian's
// SimpleSAMLphp (scripts/ensure-simplesamlphp.sh installs it; `make test` runs that) served by
// PHP's built-in server on loopback, with a temporary configuration directory
// (SIMPLESAMLPHP_CONFIG_DIR), a temporary metadata directory and a key and self-signed
// certificate made with openssl for this run; it signs with RSA-SHA256, and both signs and
// demands signatures on logout messages (sign.logout, validate.logout). Users sign in through
// exampleauth:UserPass with a `mail` and a `groups` attribute. crewjam's samlidp (samlidp.ts)
// has no logout endpoint, hence this second IdP.
//
// `Browser` plays the browser: a cookie jar (SimpleSAMLphp's session cookie is what single
// logout ends), redirects followed while they stay on the IdP, and the auto-submitted forms the
// IdP answers with handed back to the test to post to the agent.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from './ports.ts';

const SSP = '/usr/share/simplesamlphp';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

export interface SspUser {
  name: string;
  password: string;
  email: string;
  groups?: readonly string[];
}

/** An auto-submitted form the IdP answered with (SAMLResponse or SAMLRequest, RelayState). */
export interface SspForm {
  action: string;
  fields: Record<string, string>;
}

/** Where a browser step ended: a form to post, a redirect off the IdP, or a page. */
export type SspStep = { kind: 'form'; form: SspForm } | { kind: 'redirect'; location: string } | { kind: 'page'; status: number; html: string };

const unescapeHtml = (s: string) =>
  s
    .replace(/&#0*43;/g, '+')
    .replace(/&#0*34;/g, '"')
    .replace(/&#0*39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

function formIn(html: string, base: string): SspForm | null {
  const form = /<form[^>]*method="post"[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html) ?? /<form[^>]*action="([^"]+)"[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form?.[1] || form[2] === undefined) return null;
  const fields: Record<string, string> = {};
  for (const input of form[2].matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1];
    if (name !== undefined && value !== undefined && /type="hidden"/i.test(input[0])) fields[name] = unescapeHtml(value);
  }
  return { action: new URL(unescapeHtml(form[1]), base).toString(), fields };
}

/** One browser at the IdP: its own cookies, so two browsers are two IdP sessions. */
export class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly idpOrigin: string) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      // Expired or emptied: the IdP deleting a cookie.
      if (value === '' || value === 'deleted' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Requests `url` and follows redirects while they stay on the IdP (at most 20). */
  async go(url: string, body?: Record<string, string>): Promise<SspStep> {
    let next = url;
    let post = body;
    for (let hop = 0; hop < 20; hop++) {
      if (new URL(next).origin !== this.idpOrigin) return { kind: 'redirect', location: next };
      const res = await fetch(next, {
        method: post ? 'POST' : 'GET',
        headers: { cookie: this.cookieHeader(), ...(post ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: post ? new URLSearchParams(post).toString() : undefined,
        redirect: 'manual',
      });
      this.remember(res);
      post = undefined;
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        next = new URL(location, next).toString();
        continue;
      }
      const html = await res.text();
      const form = formIn(html, next);
      if (form && (form.fields.SAMLResponse !== undefined || form.fields.SAMLRequest !== undefined)) return { kind: 'form', form };
      return { kind: 'page', status: res.status, html };
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }

  /** Whether the IdP holds a session for this browser (its cookie). */
  hasCookies(): boolean {
    return this.cookies.size > 0;
  }
}

export interface SimpleSamlPhp {
  url: string;
  /** The IdP's metadata XML: its SSO and SingleLogoutService URLs (redirect binding) and signing certificate. */
  metadata(): Promise<string>;
  /** The IdP's SingleLogoutService (IdP-initiated logout starts here with ReturnTo). */
  sloUrl: string;
  certPem: string;
  /** Registers the service provider from its metadata XML (parsed by SimpleSAMLphp's own SAMLParser). */
  putServiceProvider(metadataXml: string): void;
  /**
   * Follows `authnUrl` (the agent's redirect) in `browser`; when the IdP asks for a password,
   * posts its login form. Returns the form the IdP auto-submits to the agent's ACS.
   */
  signIn(browser: Browser, authnUrl: string, user: string, password: string): Promise<SspForm>;
  /** Whether following `authnUrl` in `browser` asks for a password (no IdP session) or answers at once. */
  asksForPassword(browser: Browser, authnUrl: string): Promise<boolean>;
  newBrowser(): Browser;
  /** The IdP's log, its last `tail` characters (on failure, the reason it refused). */
  log(tail?: number): string;
  stop(): Promise<void>;
}

function php(value: unknown): string {
  // JSON is valid PHP only for scalars; arrays are built with var_export-like syntax.
  if (Array.isArray(value)) return `[${value.map(php).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `[${Object.entries(value).map(([k, v]) => `${php(k)} => ${php(v)}`).join(', ')}]`;
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(value);
}

export async function startSimpleSamlPhp(users: readonly SspUser[]): Promise<SimpleSamlPhp> {
  execFileSync('bash', [join(import.meta.dirname, '../../scripts/ensure-simplesamlphp.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'capstan-ssp-'));
  for (const sub of ['config', 'metadata', 'cert', 'log', 'data', 'tmp', 'sessions']) mkdirSync(join(dir, sub));
  const key = join(dir, 'cert/idp.key');
  const cert = join(dir, 'cert/idp.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=capstan-test-ssp', '-sha256'], { stdio: 'ignore' });
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const random = () => execFileSync('openssl', ['rand', '-hex', '16'], { encoding: 'utf8' }).trim();
  // Debian's config.php with this run's directories and settings on top.
  writeFileSync(
    join(dir, 'config/config.php'),
    `<?php
require '/etc/simplesamlphp/config.php';
$config = array_merge($config, ${php({
      baseurlpath: `${url}/`,
      metadatadir: `${dir}/metadata/`,
      certdir: `${dir}/cert/`,
      loggingdir: `${dir}/log/`,
      datadir: `${dir}/data/`,
      tempdir: `${dir}/tmp`,
      'logging.handler': 'file',
      secretsalt: random(),
      'auth.adminpassword': random(),
      'enable.saml20-idp': true,
      'module.enable': { exampleauth: true, core: true, saml: true },
      // Plain HTTP on loopback: a Secure or SameSite=None cookie would never come back.
      'session.cookie.secure': false,
      'session.cookie.samesite': null,
      'store.type': 'phpsession',
      'session.phpsession.savepath': `${dir}/sessions`,
      timezone: 'UTC',
    })});
$config['logging.level'] = SimpleSAML\\Logger::DEBUG;
`,
  );
  const accounts: Record<string, unknown> = {};
  for (const u of users) accounts[`${u.name}:${u.password}`] = { uid: [u.name], mail: [u.email], groups: [...(u.groups ?? [])] };
  // exampleauth:UserPass: the source class first (key 0), then 'user:password' => attributes.
  writeFileSync(join(dir, 'config/authsources.php'), `<?php\n$config = ${php({ admin: ['core:AdminPassword'], users: { '0': 'exampleauth:UserPass', ...accounts } })};\n`);
  writeFileSync(
    join(dir, 'metadata/saml20-idp-hosted.php'),
    `<?php\n$metadata['__DYNAMIC:1__'] = ${php({
      host: '__DEFAULT__',
      privatekey: key,
      certificate: cert,
      auth: 'users',
      'signature.algorithm': RSA_SHA256,
      // Logout messages: signed by the IdP, and the SP's refused unless signed.
      'sign.logout': true,
      'validate.logout': true,
      // The NameID is the user's email (Capstan keys accounts on it), not a transient one.
      NameIDFormat: EMAIL_FORMAT,
      'simplesaml.nameidattribute': 'mail',
    })};\n`,
  );
  writeFileSync(join(dir, 'metadata/saml20-sp-remote.php'), '<?php\n');
  const child: ChildProcess = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', `${SSP}/www`], {
    env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: join(dir, 'config') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const log = (tail = 20_000) => {
    let file = '';
    try {
      file = readFileSync(join(dir, 'log/simplesamlphp.log'), 'utf8');
    } catch {
      // Not written yet.
    }
    return `${file}\n${stderr}`.slice(-tail);
  };
  // Ready once its metadata answers (bounded: 100 tries, 100 ms apart).
  let metadataXml = '';
  for (let i = 0; i < 100 && !metadataXml; i++) {
    if (child.exitCode !== null) throw new Error(`php -S exited (${child.exitCode}): ${log()}`);
    try {
      const res = await fetch(`${url}/saml2/idp/metadata.php`);
      const text = await res.text();
      if (res.ok && text.includes('IDPSSODescriptor')) metadataXml = text;
    } catch {
      // Not listening yet.
    }
    if (!metadataXml) await new Promise((r) => setTimeout(r, 100));
  }
  if (!metadataXml) {
    child.kill('SIGTERM');
    throw new Error(`SimpleSAMLphp did not answer its metadata within 10 s: ${log()}`);
  }

  const origin = new URL(url).origin;
  const loginForm = (step: SspStep) => (step.kind === 'page' && /name="password"/.test(step.html) ? step.html : null);

  return {
    url,
    sloUrl: `${url}/saml2/idp/SingleLogoutService.php`,
    certPem: readFileSync(cert, 'utf8'),
    metadata: () => Promise.resolve(metadataXml),
    putServiceProvider(metadata) {
      const xmlFile = join(dir, 'sp.xml');
      writeFileSync(xmlFile, metadata);
      // SimpleSAMLphp's own metadata parser turns the SP's XML into its PHP metadata array.
      const script = `require '${SSP}/lib/_autoload.php';
foreach (\\SimpleSAML\\Metadata\\SAMLParser::parseDescriptorsString(file_get_contents($argv[1])) as $id => $e) {
  $md = $e->getMetadata20SP();
  $md['NameIDFormat'] = '${EMAIL_FORMAT}';
  $md['simplesaml.nameidattribute'] = 'mail';
  $md['signature.algorithm'] = '${RSA_SHA256}';
  echo '$metadata[' . var_export($id, true) . '] = ' . var_export($md, true) . ";\\n";
}`;
      const out = execFileSync('php', ['-r', script, xmlFile], { encoding: 'utf8', env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: join(dir, 'config') } });
      if (!out.includes('$metadata[')) throw new Error(`SimpleSAMLphp could not parse the SP metadata: ${out}`);
      writeFileSync(join(dir, 'metadata/saml20-sp-remote.php'), `<?php\n${out}`);
    },
    async signIn(browser, authnUrl, user, password) {
      let step = await browser.go(authnUrl);
      const html = loginForm(step);
      if (html !== null) {
        const form = /<form[^>]*action="([^"]*)"/.exec(html)?.[1] ?? '?';
        const authState = /name="AuthState" value="([^"]*)"/.exec(html)?.[1];
        if (authState === undefined) throw new Error(`SimpleSAMLphp's login form has no AuthState: ${html.slice(0, 500)}`);
        // The form posts to "?": the login page's own path.
        const loginPage = `${url}/module.php/core/loginuserpass.php`;
        const target = new URL(unescapeHtml(form), loginPage).toString();
        step = await browser.go(target, { username: user, password, AuthState: unescapeHtml(authState) });
      }
      if (step.kind !== 'form' || step.form.fields.SAMLResponse === undefined) throw new Error(`SimpleSAMLphp did not answer with a SAMLResponse form for ${user}: ${JSON.stringify(step).slice(0, 800)}\n${log()}`);
      return step.form;
    },
    async asksForPassword(browser, authnUrl) {
      const step = await browser.go(authnUrl);
      if (loginForm(step) !== null) return true;
      if (step.kind === 'form' && step.form.fields.SAMLResponse !== undefined) return false;
      throw new Error(`SimpleSAMLphp answered neither a login form nor a response: ${JSON.stringify(step).slice(0, 800)}\n${log()}`);
    },
    newBrowser: () => new Browser(origin),
    log,
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
