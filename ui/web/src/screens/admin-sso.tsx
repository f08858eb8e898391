// Admin → SSO: the LDAP configuration (save and enable, try it with a user, turn it off), OIDC
// and SAML (admin-sso-oidc.tsx, admin-sso-saml.tsx: their public URL prefilled from sso.publicUrl),
// the admin emails, and Admin → Groups (each group an SSO sign-in carried, with its role).
// docs/sso.md. Saving needs Enterprise: without it the agent's 402 shows beside the button.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { disableLdap, groups, saveAdminEmails, saveLdap, setGroupRole, ssoSettings, testLdap, type Group, type LdapConfig, type SsoView } from '../api/queries/sso';
import { SortableTable, type Column } from '../components/sortable-table';
import { ActionError, QueryView } from '../components/states';
import { Time } from '../components/time';
import { DefaultGroupRole } from './admin-sso-roles';
import { OidcForm } from './admin-sso-oidc';
import { SamlForm } from './admin-sso-saml';

const EMPTY: LdapConfig = { url: 'ldaps://', bind_dn_template: 'uid={username},ou=people,dc=example,dc=com', group_base_dn: null, ca_pem: null, starttls: false, insecure_skip_verify: false, totp: false, trust_email: false };

function LdapForm({ view }: { view: SsoView }) {
  const client = useQueryClient();
  const save = useMutation(saveLdap(client));
  const off = useMutation(disableLdap(client));
  const trial = useMutation(testLdap());
  const [config, setConfig] = useState<LdapConfig>(view.ldap?.config ?? EMPTY);
  const [who, setWho] = useState({ username: '', password: '' });
  const set = (change: Partial<LdapConfig>) => setConfig({ ...config, ...change });
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), save.mutate(config));
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="ldap-title">
      <h2 id="ldap-title">LDAP {view.ldap ? (view.ldap.enabled ? '(on)' : '(off)') : '(not configured)'}</h2>
      <label>
        Directory URL (ldaps://host or ldap://host with StartTLS)
        <input required spellCheck={false} value={config.url} onChange={(e) => set({ url: e.target.value })} />
      </label>
      <label>
        <input type="checkbox" checked={config.starttls ?? false} onChange={(e) => set({ starttls: e.target.checked })} /> Use StartTLS (ldap:// only)
      </label>
      <label>
        User DN template ({'{username}'} once)
        <input required spellCheck={false} value={config.bind_dn_template} onChange={(e) => set({ bind_dn_template: e.target.value })} />
      </label>
      <label>
        Group search base (empty: no groups)
        <input spellCheck={false} value={config.group_base_dn ?? ''} onChange={(e) => set({ group_base_dn: e.target.value.trim() === '' ? null : e.target.value })} />
      </label>
      <label>
        CA certificate (PEM, empty: the system&apos;s)
        <textarea rows={3} spellCheck={false} value={config.ca_pem ?? ''} onChange={(e) => set({ ca_pem: e.target.value.trim() === '' ? null : e.target.value })} />
      </label>
      <label>
        <input type="checkbox" checked={config.totp ?? false} onChange={(e) => set({ totp: e.target.checked })} /> Offer the authenticator-app second factor to LDAP users
      </label>
      <label>
        <input type="checkbox" checked={config.trust_email ?? false} onChange={(e) => set({ trust_email: e.target.checked })} /> Trust the directory&apos;s email addresses for the admin emails (only if users cannot change their own)
      </label>
      <label>
        <input type="checkbox" checked={config.insecure_skip_verify ?? false} onChange={(e) => set({ insecure_skip_verify: e.target.checked })} /> Skip certificate verification (development only)
      </label>
      <div>
        <button type="submit" disabled={save.isPending}>Save and turn LDAP on</button>{' '}
        {view.ldap?.enabled ? <button type="button" onClick={() => off.mutate()} disabled={off.isPending}>Turn LDAP off</button> : null}
      </div>
      <ActionError error={save.error} what="save the LDAP configuration" />
      <ActionError error={off.error} what="turn LDAP off" />
      {view.ldap ? <p>Last changed <Time at={view.ldap.updated_at} /></p> : null}
      <fieldset>
        <legend>Try it with a directory user (nothing is saved)</legend>
        <label>
          Test username
          <input autoComplete="off" value={who.username} onChange={(e) => setWho({ ...who, username: e.target.value })} />
        </label>
        <label>
          Test password
          <input type="password" autoComplete="off" value={who.password} onChange={(e) => setWho({ ...who, password: e.target.value })} />
        </label>
        <button type="button" onClick={() => trial.mutate({ config, ...who })} disabled={trial.isPending}>Test sign-in</button>
        <ActionError error={trial.error} what="sign in with this configuration" />
        {trial.data ? (
          <p role="status">
            Signed in as {trial.data.dn} ({trial.data.email ?? 'no email'}); groups: {trial.data.groups.join(', ') || 'none'}; role: {trial.data.role}
          </p>
        ) : null}
      </fieldset>
    </form>
  );
}

function AdminEmails({ view }: { view: SsoView }) {
  const client = useQueryClient();
  const save = useMutation(saveAdminEmails(client));
  const [text, setText] = useState(view.admin_emails.join('\n'));
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), save.mutate(text.split(/\s+/).filter((s) => s !== '')));
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="admin-emails">
      <h2 id="admin-emails">Admin emails</h2>
      <label>
        SSO users with these emails are admins whatever their groups (one per line)
        <textarea rows={3} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit" disabled={save.isPending}>Save admin emails</button>
      <ActionError error={save.error} what="save the admin emails" />
    </form>
  );
}

function groupColumns(onRole: (group: Group, role: Group['role']) => void): Column<Group>[] {
  return [
    { key: 'group', label: 'Group', value: (g) => g.name },
    { key: 'provider', label: 'Provider', value: (g) => g.provider },
    { key: 'seen', label: 'First seen', value: (g) => g.first_seen_at, render: (g) => <Time at={g.first_seen_at} /> },
    {
      key: 'role',
      label: 'Role',
      value: (g) => g.role,
      render: (g) => (
        <select aria-label={`Role of ${g.name}`} value={g.role} onChange={(e) => onRole(g, e.target.value === 'admin' ? 'admin' : 'viewer')}>
          <option value="viewer">viewer</option>
          <option value="admin">admin</option>
        </select>
      ),
    },
  ];
}

function Groups() {
  const client = useQueryClient();
  const query = useQuery(groups());
  const change = useMutation(setGroupRole(client));
  return (
    <section className="card" aria-labelledby="groups-title">
      <h2 id="groups-title">Groups</h2>
      <DefaultGroupRole />
      <QueryView query={query} what="groups">
        {(g) => (
          <SortableTable
            rows={g.groups}
            columns={groupColumns((group, role) => change.mutate({ ...group, role }))}
            rowKey={(group) => `${group.provider}/${group.name}`}
            caption="Groups seen at sign-in, with their role"
            searchLabel="Search groups"
            empty="No group yet: a group appears here the first time a sign-in carries it, with the role above."
          />
        )}
      </QueryView>
      <ActionError error={change.error} what="change the group's role" />
    </section>
  );
}

export function AdminSso() {
  const query = useQuery(ssoSettings());
  return (
    <>
      <h1>Single sign-on</h1>
      <QueryView query={query} what="the SSO settings">
        {(view) => (
          <>
            <p>Password sign-in: {view.local_login} (Access control → security settings).</p>
            <LdapForm view={view} />
            <OidcForm view={view} />
            <SamlForm view={view} />
            <AdminEmails view={view} />
            <Groups />
          </>
        )}
      </QueryView>
    </>
  );
}
