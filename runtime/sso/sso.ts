// The provider-neutral SSO store (docs/sso.md): configuration sealed at rest, identities keyed
// on (provider, subject), groups and their roles, the admin emails, and just-in-time
// provisioning with the role re-resolved at every sign-in.
import * as v from 'valibot';
import type { Transaction } from 'kysely';
import type { Clock } from '../../domain/clock.ts';
import { groupRolesAtSignIn, resolveRole, ssoUsername } from '../../domain/sso/roles.ts';
import type { SsoIdentity, SsoService, StoredLdap } from '../../handlers/sso/service.ts';
import type { Secrets } from '../../handlers/settings/service.ts';
import { fail, ok, taken } from '../../handlers/result.ts';
import type { Role } from '../../schema/access.ts';
import { LdapConfig, type Group, type SsoProvider } from '../../schema/sso.ts';
import type { Db } from '../store/database.ts';
import type { Database } from '../store/tables.ts';

const GroupNames = v.array(v.string());

/** At most this many groups per sign-in are recorded (a directory listing thousands must not grow every row without bound). */
export const MAX_GROUPS = 500;

type Trx = Transaction<Database>;

async function adminEmailsIn(trx: Trx | Db): Promise<string[]> {
  return (await trx.selectFrom('sso_admin_emails').select('email').orderBy('email').execute()).map((r) => r.email);
}

async function groupRolesOf(trx: Trx | Db, provider: SsoProvider, groups: readonly string[]): Promise<Role[]> {
  if (groups.length === 0) return [];
  return (await trx.selectFrom('sso_groups').select('role').where('provider', '=', provider).where('name', 'in', [...groups]).execute()).map((r) => r.role);
}

/** The roles Admin → Groups holds for those of `groups` already seen. */
async function knownGroups(trx: Trx | Db, provider: SsoProvider, groups: readonly string[]): Promise<Map<string, Role>> {
  if (groups.length === 0) return new Map();
  const rows = await trx.selectFrom('sso_groups').select(['name', 'role']).where('provider', '=', provider).where('name', 'in', [...groups]).execute();
  return new Map(rows.map((r) => [r.name, r.role]));
}

async function activeAdmins(trx: Trx): Promise<number> {
  const row = await trx.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('role', '=', 'admin').where('active', '=', 1).executeTakeFirstOrThrow();
  return row.n;
}

/**
 * `defaultRole` reads Admin → Groups' default role (the `sso_roles` runtime setting); it is
 * read before a sign-in's transaction opens, not inside it.
 */
export function createSsoService(db: Db, clock: Clock, secrets: Secrets, defaultRole: () => Promise<Role>): SsoService {
  const now = () => clock.now().getTime();

  async function ldap(): Promise<StoredLdap | null> {
    const row = await db.selectFrom('sso_providers').selectAll().where('provider', '=', 'ldap').executeTakeFirst();
    if (!row) return null;
    return { enabled: row.enabled === 1, config: v.parse(LdapConfig, JSON.parse(secrets.open(row.config_sealed))), updatedAt: new Date(row.updated_at) };
  }

  return {
    ldap,

    async setLdap(config) {
      const row = { provider: 'ldap' as const, enabled: 1, config_sealed: secrets.seal(JSON.stringify(config)), updated_at: now() };
      await db
        .insertInto('sso_providers')
        .values(row)
        .onConflict((oc) => oc.column('provider').doUpdateSet({ enabled: 1, config_sealed: row.config_sealed, updated_at: row.updated_at }))
        .execute();
      return { enabled: true, config, updatedAt: new Date(row.updated_at) };
    },

    async disableLdap() {
      const result = await db.updateTable('sso_providers').set({ enabled: 0, updated_at: now() }).where('provider', '=', 'ldap').where('enabled', '=', 1).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async providerOf(userId) {
      return (await db.selectFrom('sso_identities').select('provider').where('user_id', '=', userId).executeTakeFirst())?.provider ?? null;
    },

    async enabledProviders() {
      return (await db.selectFrom('sso_providers').select('provider').where('enabled', '=', 1).orderBy('provider').execute()).map((r) => r.provider);
    },

    adminEmails: () => adminEmailsIn(db),

    async setAdminEmails(emails) {
      const unique = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('sso_admin_emails').execute();
        if (unique.length) await trx.insertInto('sso_admin_emails').values(unique.map((email) => ({ email }))).execute();
      });
    },

    async previewRole(identity) {
      const groups = identity.groups.slice(0, MAX_GROUPS);
      const { roles } = groupRolesAtSignIn(groups, await knownGroups(db, identity.provider, groups), await defaultRole());
      return resolveRole({ groupRoles: roles, email: identity.email, emailVerified: identity.emailVerified, adminEmails: await adminEmailsIn(db), pinned: null });
    },

    async signIn(identity: SsoIdentity) {
      const t = now();
      const groups = [...new Set(identity.groups)].slice(0, MAX_GROUPS);
      const email = identity.email?.trim().toLowerCase() || null;
      // What sso_identities.email keeps for re-resolving the role later (an unpin, a group's role
      // changed): the email only when the provider vouched for it, so an unverified one can
      // never match the admin emails then either.
      const verifiedEmail = identity.emailVerified ? email : null;
      const fallback = await defaultRole();
      return db.transaction().execute(async (trx) => {
        // Groups appear on first sight with the default role (viewer unless an admin chose
        // otherwise); a known group keeps the role it has.
        const { roles: groupRoles, fresh } = groupRolesAtSignIn(groups, await knownGroups(trx, identity.provider, groups), fallback);
        if (fresh.length) {
          await trx
            .insertInto('sso_groups')
            .values(fresh.map((name) => ({ provider: identity.provider, name, role: fallback, first_seen_at: t })))
            .onConflict((oc) => oc.columns(['provider', 'name']).doNothing())
            .execute();
        }
        const known = await trx
          .selectFrom('sso_identities')
          .innerJoin('users', 'users.id', 'sso_identities.user_id')
          .select(['users.id', 'users.username', 'users.role', 'users.role_pinned', 'users.active', 'users.totp_enabled'])
          .where('sso_identities.provider', '=', identity.provider)
          .where('sso_identities.subject', '=', identity.subject)
          .executeTakeFirst();
        const role = resolveRole({
          groupRoles,
          email: verifiedEmail,
          emailVerified: true,
          adminEmails: await adminEmailsIn(trx),
          pinned: known && known.role_pinned === 1 ? known.role : null,
        });
        if (known) {
          // Membership re-read: the role changes here, and every session reads it per request.
          // Never to the point of leaving no active admin (as PATCH /admin/users refuses): the
          // last one stays admin until another exists.
          const next = known.role === 'admin' && role !== 'admin' && known.active === 1 && (await activeAdmins(trx)) <= 1 ? 'admin' : role;
          await trx.updateTable('users').set({ role: next }).where('id', '=', known.id).execute();
          await trx
            .updateTable('sso_identities')
            .set({ email: verifiedEmail, groups: JSON.stringify(groups), last_sign_in_at: t })
            .where('provider', '=', identity.provider)
            .where('subject', '=', identity.subject)
            .execute();
          return ok({ id: known.id, username: known.username, role: next, active: known.active === 1, totpEnabled: known.totp_enabled === 1 });
        }
        const username = ssoUsername(identity.provider, identity.subject, email);
        const clash = await trx.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
        if (clash) return fail(taken('username', `an account named ${username} already exists; an administrator must rename or remove it before this ${identity.provider} user can sign in`));
        // No password: SSO accounts never pass the password sign-in (checkPassword needs a hash).
        const { id } = await trx.insertInto('users').values({ username, role, password_hash: null, active: 1, created_at: t }).returning('id').executeTakeFirstOrThrow();
        await trx.insertInto('sso_identities').values({ provider: identity.provider, subject: identity.subject, user_id: id, email: verifiedEmail, groups: JSON.stringify(groups), last_sign_in_at: t }).execute();
        return ok({ id, username, role, active: true, totpEnabled: false });
      });
    },

    async unpinRole(username) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('users')
          .leftJoin('sso_identities', 'sso_identities.user_id', 'users.id')
          .select(['users.id', 'users.username', 'users.role', 'users.active', 'users.role_pinned', 'sso_identities.provider', 'sso_identities.email', 'sso_identities.groups'])
          .where('users.username', '=', username)
          .executeTakeFirst();
        if (!row) return fail({ code: 'not_found', message: `no user ${username}` });
        if (row.provider === null) return fail({ code: 'invalid_input', field: 'username', message: `${username} is a local account: its role is only ever set by hand, so there is no pin to remove` });
        const memberGroups = v.parse(GroupNames, JSON.parse(row.groups ?? '[]'));
        const next = resolveRole({ groupRoles: await groupRolesOf(trx, row.provider, memberGroups), email: row.email, emailVerified: true, adminEmails: await adminEmailsIn(trx), pinned: null });
        // The last active admin keeps the role, as at sign-in and on a group change.
        const role = row.role === 'admin' && next !== 'admin' && row.active === 1 && (await activeAdmins(trx)) <= 1 ? 'admin' : next;
        await trx.updateTable('users').set({ role, role_pinned: 0 }).where('id', '=', row.id).execute();
        return ok({ username: row.username, role, wasPinned: row.role_pinned === 1 });
      });
    },

    async groups() {
      const rows = await db.selectFrom('sso_groups').selectAll().orderBy('provider').orderBy('name').execute();
      return rows.map((r): Group => ({ provider: r.provider, name: r.name, role: r.role, first_seen_at: new Date(r.first_seen_at).toISOString() }));
    },

    async setGroupRole(provider, name, role) {
      return db.transaction().execute(async (trx) => {
        const updated = await trx.updateTable('sso_groups').set({ role }).where('provider', '=', provider).where('name', '=', name).returningAll().executeTakeFirst();
        if (!updated) return fail({ code: 'not_found', message: `no ${provider} group ${name} has signed in yet` });
        // Role changes apply to sessions already signed in: re-resolve every unpinned member now,
        // from the groups they carried at their last sign-in.
        const adminEmails = await adminEmailsIn(trx);
        const members = await trx
          .selectFrom('sso_identities')
          .innerJoin('users', 'users.id', 'sso_identities.user_id')
          .select(['users.id', 'users.role', 'users.active', 'sso_identities.email', 'sso_identities.groups'])
          .where('sso_identities.provider', '=', provider)
          .where('users.role_pinned', '=', 0)
          .execute();
        let usersUpdated = 0;
        for (const m of members) {
          const memberGroups = v.parse(GroupNames, JSON.parse(m.groups));
          if (!memberGroups.includes(name)) continue;
          const next = resolveRole({ groupRoles: await groupRolesOf(trx, provider, memberGroups), email: m.email, emailVerified: true, adminEmails, pinned: null });
          // The last active admin keeps the role, as at sign-in.
          const lastAdmin = m.role === 'admin' && m.active === 1 && (await activeAdmins(trx)) <= 1;
          if (next !== m.role && !lastAdmin) {
            await trx.updateTable('users').set({ role: next }).where('id', '=', m.id).execute();
            usersUpdated += 1;
          }
        }
        return ok({ group: { provider: updated.provider, name: updated.name, role: updated.role, first_seen_at: new Date(updated.first_seen_at).toISOString() }, usersUpdated });
      });
    },
  };
}
