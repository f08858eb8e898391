// Admin → Groups' default role (the role a group gets the first time a sign-in carries it) and,
// on Admin → Users, an SSO account's pinned role with the way back to its groups. docs/sso.md.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { groups } from '../api/queries/sso';
import { setDefaultRole, unpinRole } from '../api/queries/sso-roles';
import type { User } from '../api/queries/users';
import { ActionError } from '../components/states';

/** Mounted on the Groups card; reads the groups query the card already holds (one request). */
export function DefaultGroupRole() {
  const client = useQueryClient();
  const query = useQuery(groups());
  const change = useMutation(setDefaultRole(client));
  const role = query.data?.default_role;
  if (role === undefined) return null;
  return (
    <p>
      <label>
        New groups get the role{' '}
        <select aria-label="Role of new groups" value={role} disabled={change.isPending} onChange={(e) => change.mutate(e.target.value === 'admin' ? 'admin' : 'viewer')}>
          <option value="viewer">viewer</option>
          <option value="admin">admin</option>
        </select>
      </label>{' '}
      <span className="muted">when a sign-in first carries them; groups listed below keep theirs.</span>
      <ActionError error={change.error} what="change the role of new groups" />
    </p>
  );
}

/** Beside an SSO account's role: where it comes from, and un-pinning a role set by hand. */
export function RolePin({ user }: { user: User }) {
  const client = useQueryClient();
  const unpin = useMutation(unpinRole(client));
  if (user.sso_provider === null) return null;
  if (!user.role_pinned) return <span className="muted"> from {user.sso_provider} groups</span>;
  return (
    <>
      <span className="muted"> set by hand (sign-ins leave it)</span>{' '}
      <button type="button" disabled={unpin.isPending} onClick={() => unpin.mutate(user.username)}>Follow {user.sso_provider} groups again</button>
      <ActionError error={unpin.error} what={`un-pin ${user.username}'s role`} />
    </>
  );
}
