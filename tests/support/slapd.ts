// A real OpenLDAP server (Debian's slapd) for the LDAP sign-in tests: a temporary slapd.conf,
// a self-signed certificate made with openssl for 127.0.0.1, users whose passwords are hashed
// with slappasswd, groupOfNames groups, loaded with slapadd, and slapd listening on loopback
// for ldap:// (StartTLS) and ldaps://. slapd runs in the foreground with the `stats` log level,
// so a test can count the BIND operations the server actually received.
// scripts/ensure-slapd.sh installs the packages (make test runs it).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import { freeLoopbackPort } from './ports.ts';

export const BASE_DN = 'dc=capstan,dc=test';
export const PEOPLE_DN = `ou=people,${BASE_DN}`;
export const GROUPS_DN = `ou=groups,${BASE_DN}`;
const ROOT_DN = `cn=admin,${BASE_DN}`;
const ROOT_PASSWORD = 'slapd root password';

export interface DirectoryUser {
  uid: string;
  password: string;
  mail?: string;
}

export interface DirectoryGroup {
  cn: string;
  members: readonly string[];
}

export interface Slapd {
  /** ldaps:// on its own port. */
  ldapsUrl: string;
  /** ldap:// on its own port, for StartTLS. */
  ldapUrl: string;
  /** The self-signed certificate slapd presents (PEM), to hand over as the CA. */
  caPem: string;
  userDn(uid: string): string;
  groupDn(cn: string): string;
  /** BIND operations slapd has logged so far, with the DN each one named. */
  binds(): string[];
  /** Replaces a group's members (as the directory's root). */
  setMembers(cn: string, uids: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const SLAPPASSWD = '/usr/sbin/slappasswd';

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function hashed(password: string): string {
  return execFileSync(SLAPPASSWD, ['-h', '{SSHA}', '-s', password], { encoding: 'utf8' }).trim();
}

function ldif(users: readonly DirectoryUser[], groups: readonly DirectoryGroup[], userDn: (uid: string) => string): string {
  const entries = [
    `dn: ${BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\ndc: capstan\no: Capstan test directory`,
    `dn: ${PEOPLE_DN}\nobjectClass: organizationalUnit\nou: people`,
    `dn: ${GROUPS_DN}\nobjectClass: organizationalUnit\nou: groups`,
    ...users.map((u) =>
      [`dn: ${userDn(u.uid)}`, 'objectClass: inetOrgPerson', `uid: ${u.uid}`, `cn: ${u.uid}`, `sn: ${u.uid}`, ...(u.mail ? [`mail: ${u.mail}`] : []), `userPassword: ${hashed(u.password)}`].join('\n'),
    ),
    // groupOfNames needs at least one member; the root DN stands in for an empty group.
    ...groups.map((g) => [`dn: cn=${g.cn},${GROUPS_DN}`, 'objectClass: groupOfNames', `cn: ${g.cn}`, ...(g.members.length ? g.members.map((m) => `member: ${userDn(m)}`) : [`member: ${ROOT_DN}`])].join('\n')),
  ];
  return entries.join('\n\n') + '\n';
}

export async function startSlapd(users: readonly DirectoryUser[], groups: readonly DirectoryGroup[]): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-slapd-'));
  const userDn = (uid: string) => `uid=${uid},${PEOPLE_DN}`;
  const groupDn = (cn: string) => `cn=${cn},${GROUPS_DN}`;
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  mkdirSync(join(dir, 'db'));
  const conf = [
    'include /etc/ldap/schema/core.schema',
    'include /etc/ldap/schema/cosine.schema',
    'include /etc/ldap/schema/inetorgperson.schema',
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `TLSCertificateFile ${join(dir, 'cert.pem')}`,
    `TLSCertificateKeyFile ${join(dir, 'key.pem')}`,
    'loglevel stats',
    'database mdb',
    `suffix "${BASE_DN}"`,
    `rootdn "${ROOT_DN}"`,
    `rootpw ${hashed(ROOT_PASSWORD)}`,
    `directory ${join(dir, 'db')}`,
    // Passwords: only for binding. Everything else: readable by a signed-in user (the sign-in
    // reads its own entry and searches groups bound as that user), nothing anonymously.
    'access to attrs=userPassword by anonymous auth by * none',
    'access to * by users read by anonymous auth by * none',
  ].join('\n');
  writeFileSync(join(dir, 'slapd.conf'), conf + '\n');
  writeFileSync(join(dir, 'data.ldif'), ldif(users, groups, userDn));
  execFileSync(SLAPADD, ['-f', join(dir, 'slapd.conf'), '-l', join(dir, 'data.ldif')], { stdio: 'pipe' });

  const [ldapPort, ldapsPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
  const ldapUrl = `ldap://127.0.0.1:${ldapPort}`;
  const ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
  let log = '';
  // -d stats: foreground, the stats log on stderr (each operation, BINDs with their DN).
  const child: ChildProcess = spawn(SLAPD, ['-f', join(dir, 'slapd.conf'), '-h', `${ldapUrl}/ ${ldapsUrl}/`, '-d', 'stats'], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!((await accepts(ldapPort)) && (await accepts(ldapsPort)))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`slapd did not start:\n${log.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const caPem = readFileSync(join(dir, 'cert.pem'), 'utf8');

  return {
    ldapUrl,
    ldapsUrl,
    caPem,
    userDn,
    groupDn,
    binds: () => [...log.matchAll(/BIND dn="([^"]*)" method=128/g)].map((m) => m[1] ?? ''),
    async setMembers(cn, uids) {
      const client = new Client({ url: ldapsUrl, tlsOptions: { ca: [caPem] } });
      try {
        await client.bind(ROOT_DN, ROOT_PASSWORD);
        const { Change, Attribute } = await import('ldapts');
        const values = uids.length ? uids.map(userDn) : [ROOT_DN];
        await client.modify(groupDn(cn), [new Change({ operation: 'replace', modification: new Attribute({ type: 'member', values }) })]);
      } finally {
        await client.unbind();
      }
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The root's own binds (setMembers) are not sign-ins: callers filter them out with this. */
export const isRootBind = (dn: string): boolean => dn === ROOT_DN;
