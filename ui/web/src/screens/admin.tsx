// Admin: local users, access control (idle timeout, IP allow/deny lists, bans, OAuth
// clients) and expert mode (the runtime switch Helm closes with). Containers hold the queries
// and mutations; the views below them only render.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { ipAccess, liftBan, updateIpLists, type Ban } from '../api/queries/ip-access';
import { deleteOAuthClient, oauthClients, type OAuthClient } from '../api/queries/oauth';
import { securitySettings, updateSecuritySettings } from '../api/queries/settings';
import { createUser, updateUser, users, type Role, type User, type UserChange, seats, type Seats } from '../api/queries/users';
import { ExpertModeSwitch } from '../components/expert-mode-switch';
import { HelmConfigs } from '../components/helm-configs';
import { SortableTable, type Column } from '../components/sortable-table';
import { ActionError, failureOf, QueryView, type Failure } from '../components/states';
import { Time } from '../components/time';
import { RolePin } from './admin-sso-roles';

/** What a failed change to a user was, in words: "deactivate alice", "change alice's role". */
function changeWords(change: UserChange): string {
  if (change.active !== undefined) return `${change.active ? 'reactivate' : 'deactivate'} ${change.username}`;
  return `change ${change.username}'s role`;
}

function DeactivationConfirm({ username, onConfirm, onCancel }: { username: string; onConfirm: () => void; onCancel: () => void }) {
  const id = `deactivate-${username}`;
  return (
    <div className="card confirm" role="group" aria-labelledby={id}>
      {/* The agent revokes these with the account; say so before it happens, not after. */}
      <p id={id}>Deactivating {username} signs them out and revokes their API keys and connected apps; reactivating does not restore them.</p>
      <button type="button" onClick={onConfirm}>Yes, deactivate {username}</button>{' '}
      <button type="button" onClick={onCancel} autoFocus>Cancel</button>
    </div>
  );
}

function userColumns(onChange: (change: UserChange) => void, failure: Failure<UserChange> | null, confirming: string | null, confirm: (username: string) => void): Column<User>[] {
  return [
    { key: 'user', label: 'User', value: (u) => u.username },
    {
      key: 'role',
      label: 'Role',
      value: (u) => u.role,
      render: (u) => (
        <>
          <select aria-label={`Role of ${u.username}`} value={u.role} onChange={(e) => onChange({ username: u.username, role: e.target.value as Role })}>
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
          </select>
          <RolePin user={u} />
        </>
      ),
    },
    { key: 'totp', label: 'Second factor', value: (u) => (u.totp_enabled ? 'on' : 'off') },
    { key: 'created', label: 'Created', value: (u) => u.created_at, render: (u) => <Time at={u.created_at} /> },
    {
      key: 'state',
      label: 'State',
      value: (u) => (u.active ? 'active' : 'deactivated'),
      render: (u) => (
        <>
          {u.active ? 'active' : 'deactivated'}{' '}
          {u.active ? (
            <button type="button" onClick={() => confirm(u.username)} aria-expanded={confirming === u.username}>Deactivate {u.username}</button>
          ) : (
            <button type="button" onClick={() => onChange({ username: u.username, active: true })}>Reactivate {u.username}</button>
          )}
          <ActionError error={failure?.target.username === u.username ? failure.error : null} what={failure ? changeWords(failure.target) : ''} />
        </>
      ),
    },
  ];
}

function UserTable({ users, onChange, failure }: { users: User[]; onChange: (change: UserChange) => void; failure: Failure<UserChange> | null }) {
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <SortableTable
      rows={users}
      columns={userColumns(onChange, failure, confirming, setConfirming)}
      rowKey={(u) => String(u.id)}
      caption="Local accounts"
      empty="No local account."
      // The confirmation spans the row's width, under the user it is about.
      rowDetail={(u) =>
        confirming === u.username && u.active ? (
          <DeactivationConfirm username={u.username} onConfirm={() => (setConfirming(null), onChange({ username: u.username, active: false }))} onCancel={() => setConfirming(null)} />
        ) : null
      }
    />
  );
}

function NewUserForm() {
  const client = useQueryClient();
  const create = useMutation(createUser(client));
  const empty = { username: '', password: '', role: 'viewer' as Role };
  const [form, setForm] = useState(empty);
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), create.mutate(form, { onSuccess: () => setForm(empty) }));
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="new-user">
      <h2 id="new-user">New user</h2>
      <label>
        Username
        <input required value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} />
      </label>
      <label>
        Password (at least 8 characters)
        <input type="password" autoComplete="new-password" required minLength={8} value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />
      </label>
      <label>
        Role
        <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
          <option value="viewer">viewer</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <ActionError error={create.error} what="create the user" />
      <button type="submit" disabled={create.isPending}>Create user</button>
    </form>
  );
}

function SeatSummary({ data }: { data: Seats }) {
  const used = data.seats.filter((s) => s.active + s.inactive > 0);
  return (
    <p className="muted" data-testid="seats">
      {data.total_active} {data.total_active === 1 ? 'seat' : 'seats'} in use: {used.map((s) => `${s.active} ${s.role}${s.active === 1 ? '' : 's'} (${s.provider})${s.inactive > 0 ? ` + ${s.inactive} deactivated` : ''}`).join(', ')}
    </p>
  );
}

export function AdminUsers() {
  const client = useQueryClient();
  const query = useQuery(users());
  const seatCounts = useQuery({ ...seats(), enabled: query.isSuccess });
  const update = useMutation(updateUser(client));
  return (
    <>
      <h1>Users</h1>
      {/* One refusal is enough: the counts are asked for only once the list was allowed. */}
      {query.isSuccess ? (
        <QueryView query={seatCounts} what="seat counts">
          {(data) => <SeatSummary data={data} />}
        </QueryView>
      ) : null}
      <QueryView query={query} what="users">
        {(data) => <UserTable users={data.users} onChange={(change) => update.mutate(change)} failure={failureOf(update)} />}
      </QueryView>
      <NewUserForm />
    </>
  );
}

const lines = (text: string) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);

function IdleTimeout() {
  const client = useQueryClient();
  const security = useQuery(securitySettings());
  const save = useMutation(updateSecuritySettings(client));
  const [idle, setIdle] = useState<string | null>(null);
  return (
    <QueryView query={security} what="security settings">
      {(s) => (
        <form className="stack" onSubmit={(e) => (e.preventDefault(), save.mutate({ session_idle_timeout_secs: Number(idle ?? s.session_idle_timeout_secs) }, { onSuccess: () => setIdle(null) }))}>
          <h2>Sessions</h2>
          <label>
            Idle timeout in seconds (0 never expires)
            <input type="number" min={0} value={idle ?? String(s.session_idle_timeout_secs)} onChange={(e) => setIdle(e.target.value)} />
          </label>
          <ActionError error={save.error} what="save the idle timeout" />
          <button type="submit" disabled={save.isPending}>Save idle timeout</button>
        </form>
      )}
    </QueryView>
  );
}

function BanList({ bans, onLift, failure }: { bans: Ban[]; onLift: (ip: string) => void; failure: Failure<string> | null }) {
  if (bans.length === 0) return <p className="muted">No address is banned.</p>;
  return (
    <ul>
      {bans.map((b) => (
        <li key={b.ip}>
          {b.ip}: {b.reason}, banned <Time at={b.created_at} />, {b.expires_at ? <>ends <Time at={b.expires_at} /></> : 'until lifted'}{' '}
          <button type="button" onClick={() => onLift(b.ip)}>Lift ban on {b.ip}</button>
          <ActionError error={failure?.target === b.ip ? failure.error : null} what={`lift the ban on ${b.ip}`} />
        </li>
      ))}
    </ul>
  );
}

function IpAccess() {
  const client = useQueryClient();
  const access = useQuery(ipAccess());
  const saveLists = useMutation(updateIpLists(client));
  const lift = useMutation(liftBan(client));
  const [lists, setLists] = useState<{ allow: string; deny: string } | null>(null);
  return (
    <QueryView query={access} what="IP access">
      {(a) => {
        const current = lists ?? { allow: a.allowlist.join('\n'), deny: a.denylist.join('\n') };
        const save = (e: SyntheticEvent<HTMLFormElement>) => {
          e.preventDefault();
          saveLists.mutate({ allowlist: lines(current.allow), denylist: lines(current.deny) }, { onSuccess: () => setLists(null) });
        };
        return (
          <>
            <form className="stack" onSubmit={save}>
              <h2>IP lists</h2>
              <p className="muted">You are connecting from {a.your_ip}; a change that would lock you out is refused.</p>
              <label>
                Allowlist (one CIDR or address a line; empty allows everyone)
                <textarea rows={4} value={current.allow} onChange={(e) => setLists({ ...current, allow: e.target.value })} />
              </label>
              <label>
                Denylist
                <textarea rows={4} value={current.deny} onChange={(e) => setLists({ ...current, deny: e.target.value })} />
              </label>
              <ActionError error={saveLists.error} what="save the IP lists" />
              <button type="submit" disabled={saveLists.isPending}>Save IP lists</button>
            </form>
            <h2>Bans</h2>
            <BanList bans={a.bans} onLift={(ip) => lift.mutate(ip)} failure={failureOf(lift)} />
          </>
        );
      }}
    </QueryView>
  );
}

function oauthClientColumns(onDelete: (id: string) => void, failure: Failure<string> | null): Column<OAuthClient>[] {
  return [
    { key: 'name', label: 'Client', value: (c) => c.client_name, render: (c) => <><strong>{c.client_name}</strong> <span className="muted">{c.client_id}</span></> },
    { key: 'redirect', label: 'Redirect URIs', value: (c) => c.redirect_uris.join(' ') },
    { key: 'created', label: 'Registered', value: (c) => c.created_at, render: (c) => <Time at={c.created_at} /> },
    {
      key: 'approved',
      label: 'Approved',
      value: (c) => c.last_authorized_at,
      render: (c) => (c.last_authorized_at ? <Time at={c.last_authorized_at} /> : <>never; expires <Time at={c.expires_at} /></>),
    },
    { key: 'tokens', label: 'Live tokens', value: (c) => c.live_tokens, numeric: true },
    { key: 'used', label: 'Last used', value: (c) => c.last_used_at, render: (c) => <Time at={c.last_used_at} absent="never" /> },
    {
      key: 'delete',
      label: 'Delete',
      value: () => null,
      sortable: false,
      render: (c) => (
        <>
          <button type="button" onClick={() => onDelete(c.client_id)}>Delete {c.client_name}</button>
          <ActionError error={failure?.target === c.client_id ? failure.error : null} what={`delete ${c.client_name}`} />
        </>
      ),
    },
  ];
}

/** MCP clients that registered themselves; deleting one revokes its tokens (docs/mcp.md). */
function OAuthClients() {
  const client = useQueryClient();
  const query = useQuery(oauthClients());
  const remove = useMutation(deleteOAuthClient(client));
  return (
    <section aria-labelledby="oauth-clients">
      <h2 id="oauth-clients">OAuth clients</h2>
      <QueryView query={query} what="OAuth clients">
        {(data) => (
          <>
            <p className="muted">
              {data.clients.length} of at most {data.limit} registered. A client no user approved is forgotten 24 hours after it registered; deleting one revokes its tokens at once.
            </p>
            <SortableTable rows={data.clients} columns={oauthClientColumns((id) => remove.mutate(id), failureOf(remove))} rowKey={(c) => c.client_id} caption="Registered OAuth clients" searchLabel="Search clients" empty="No MCP client has registered." />
          </>
        )}
      </QueryView>
    </section>
  );
}

export function AdminAccess() {
  return (
    <>
      <h1>Access control</h1>
      <IdleTimeout />
      <IpAccess />
      <OAuthClients />
    </>
  );
}

/** Admin → Expert mode (docs/expert-mode.md): the switch Helm's routes close with, and the saved Helm configs. */
export function AdminExpertMode() {
  return (
    <>
      <h1>Expert mode</h1>
      <ExpertModeSwitch />
      <section aria-labelledby="helm-configs">
        <h2 id="helm-configs">Helm configs</h2>
        <HelmConfigs />
      </section>
    </>
  );
}
