// Admin: local users, and access control (idle timeout, IP allow/deny lists, bans).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { api, errorText, unwrap } from '../api/client';
import { queries } from '../api/queries';
import { QueryView } from '../components/states';


export function AdminUsers() {
  const client = useQueryClient();
  const users = useQuery(queries.users());
  const [form, setForm] = useState({ username: '', password: '', role: 'viewer' as 'viewer' | 'admin' });
  const refresh = () => client.invalidateQueries({ queryKey: ['admin', 'users'] });
  const create = useMutation({ mutationFn: () => unwrap(api.POST('/admin/users', { body: form })), onSuccess: () => (setForm({ username: '', password: '', role: 'viewer' }), refresh()) });
  const update = useMutation({
    mutationFn: (change: { username: string; role?: 'viewer' | 'admin'; active?: boolean }) => unwrap(api.PATCH('/admin/users/{username}', { params: { path: { username: change.username } }, body: change })),
    onSuccess: refresh,
  });
  const submit = (e: SyntheticEvent<HTMLFormElement>) => (e.preventDefault(), create.mutate());
  return (
    <>
      <h1>Users</h1>
      <QueryView query={users} what="users">
        {(data) => (
          <table>
            <caption>Local accounts</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Second factor</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {data.users.map((u) => (
                <tr key={u.id}>
                  <td>{u.username}</td>
                  <td>
                    <select aria-label={`Role of ${u.username}`} value={u.role} onChange={(e) => update.mutate({ username: u.username, role: e.target.value as 'viewer' | 'admin' })}>
                      <option value="viewer">viewer</option>
                      <option value="admin">admin</option>
                    </select>
                  </td>
                  <td>{u.totp_enabled ? 'on' : 'off'}</td>
                  <td>
                    {u.active ? 'active' : 'deactivated'}{' '}
                    <button type="button" onClick={() => update.mutate({ username: u.username, active: !u.active })}>
                      {u.active ? 'Deactivate' : 'Reactivate'} {u.username}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      {update.error ? <p role="alert" className="error">{errorText(update.error)}</p> : null}
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
          <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as 'viewer' | 'admin' })}>
            <option value="viewer">viewer</option>
            <option value="admin">admin</option>
          </select>
        </label>
        {create.error ? <p role="alert" className="error">{errorText(create.error)}</p> : null}
        <button type="submit">Create user</button>
      </form>
    </>
  );
}

const lines = (text: string) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);

export function AdminAccess() {
  const client = useQueryClient();
  const security = useQuery(queries.securitySettings());
  const access = useQuery(queries.accessControl());
  const [idle, setIdle] = useState<string | null>(null);
  const [lists, setLists] = useState<{ allow: string; deny: string } | null>(null);
  const saveIdle = useMutation({
    mutationFn: (secs: number) => unwrap(api.PUT('/admin/settings/security', { body: { session_idle_timeout_secs: secs } })),
    onSuccess: () => (setIdle(null), client.invalidateQueries({ queryKey: ['admin', 'security'] })),
  });
  const saveLists = useMutation({
    mutationFn: (l: { allow: string; deny: string }) => unwrap(api.PUT('/admin/access-control', { body: { allowlist: lines(l.allow), denylist: lines(l.deny) } })),
    onSuccess: () => (setLists(null), client.invalidateQueries({ queryKey: ['admin', 'access-control'] })),
  });
  const lift = useMutation({
    mutationFn: (ip: string) => unwrap(api.DELETE('/admin/access-control/bans/{ip}', { params: { path: { ip } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['admin', 'access-control'] }),
  });
  return (
    <>
      <h1>Access control</h1>
      <QueryView query={security} what="security settings">
        {(s) => (
          <form className="stack" onSubmit={(e) => (e.preventDefault(), saveIdle.mutate(Number(idle ?? s.session_idle_timeout_secs)))}>
            <h2>Sessions</h2>
            <label>
              Idle timeout in seconds (0 never expires)
              <input type="number" min={0} value={idle ?? String(s.session_idle_timeout_secs)} onChange={(e) => setIdle(e.target.value)} />
            </label>
            {saveIdle.error ? <p role="alert" className="error">{errorText(saveIdle.error)}</p> : null}
            <button type="submit">Save idle timeout</button>
          </form>
        )}
      </QueryView>
      <QueryView query={access} what="IP access">
        {(a) => {
          const current = lists ?? { allow: a.allowlist.join('\n'), deny: a.denylist.join('\n') };
          return (
            <>
              <form className="stack" onSubmit={(e) => (e.preventDefault(), saveLists.mutate(current))}>
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
                {saveLists.error ? <p role="alert" className="error">{errorText(saveLists.error)}</p> : null}
                <button type="submit">Save IP lists</button>
              </form>
              <h2>Bans</h2>
              {a.bans.length === 0 ? (
                <p className="muted">No address is banned.</p>
              ) : (
                <ul>
                  {a.bans.map((b) => (
                    <li key={b.ip}>
                      {b.ip}: {b.reason}, until {b.expires_at ?? 'lifted'} <button type="button" onClick={() => lift.mutate(b.ip)}>Lift ban on {b.ip}</button>
                    </li>
                  ))}
                </ul>
              )}
            </>
          );
        }}
      </QueryView>
    </>
  );
}
