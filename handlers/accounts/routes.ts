// Accounts: your own second factor and sessions, and (admins) every user and session. Sessions only;
// no API key reaches these.
import { beginEnrolment, confirmEnrolment, disableSecondFactor, secondFactorStatus } from './second-factor.ts';
import { listOwnSessions, revokeOwnSession, listAllSessions, revokeAnySession } from './sessions.ts';
import { changeOwnPassword } from './password.ts';
import { seatCounts } from './seats.ts';
import { Seats, CodeInput, PasswordChanged, PasswordChangeInput, Enrolment, SecondFactorStatus, SessionIdInput, SessionList, SessionRevoked, CreateUserInput, UpdateUserInput, UserList, UserOutput } from '../../schema/accounts.ts';
import { NoInput } from '../../schema/common.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';
import { createUser, listUsers, updateUser } from './users.ts';

const own = noApiKeys('viewer');

const admin = noApiKeys('admin');

export const accountRoutes: readonly Route[] = [
  defineRoute({
    access: { auth: 'credential', role: 'admin', scope: 'policy:read' },
    feature: null,
    method: 'GET',
    path: '/admin/seats',
    summary: 'Seat counts: accounts by role and by where they sign in (local, ldap, oidc, saml), active and deactivated (a key needs policy:read)',
    input: NoInput,
    output: Seats,
    audit: 'http',
    rateLimit: 'read',
    handler: seatCounts,
  }),
  defineRoute({
    ...own,
    method: 'POST',
    path: '/me/password',
    summary: 'Change your own password (a signed-in session; no key reaches it): the current one, then the new one (at least 8 characters). Every other session of yours ends; this one stays',
    input: PasswordChangeInput,
    output: PasswordChanged,
    audit: 'auth',
    rateLimit: 'login',
    handler: changeOwnPassword,
  }),
  defineRoute({
    ...own,
    method: 'GET',
    path: '/me/second-factor',
    summary: 'Whether your TOTP second factor is active, or enrolled but not yet confirmed',
    input: NoInput,
    output: SecondFactorStatus,
    audit: 'access',
    rateLimit: 'read',
    handler: secondFactorStatus,
  }),
  defineRoute({
    ...own,
    method: 'POST',
    path: '/me/second-factor/enrol',
    summary: 'Start TOTP enrolment: a new secret and otpauth URI, inactive until confirmed with one code',
    input: NoInput,
    output: Enrolment,
    audit: 'auth',
    rateLimit: 'write',
    handler: beginEnrolment,
  }),
  defineRoute({
    ...own,
    method: 'POST',
    path: '/me/second-factor/confirm',
    summary: 'Confirm enrolment with one current code; from then on sign-in needs a code',
    input: CodeInput,
    output: SecondFactorStatus,
    audit: 'auth',
    rateLimit: 'login',
    handler: confirmEnrolment,
  }),
  defineRoute({
    ...own,
    method: 'POST',
    path: '/me/second-factor/disable',
    summary: 'Turn the second factor off; needs a current code. The fifth wrong code since signing in ends this session',
    input: CodeInput,
    output: SecondFactorStatus,
    audit: 'auth',
    rateLimit: 'login',
    handler: disableSecondFactor,
  }),
  defineRoute({
    ...own,
    method: 'GET',
    path: '/me/sessions',
    summary: 'Your signed-in sessions; `current` marks this one',
    input: NoInput,
    output: SessionList,
    audit: 'access',
    rateLimit: 'read',
    handler: listOwnSessions,
  }),
  defineRoute({
    ...own,
    method: 'DELETE',
    path: '/me/sessions/:id',
    summary: 'Sign one of your sessions out',
    input: SessionIdInput,
    output: SessionRevoked,
    audit: 'auth',
    rateLimit: 'write',
    handler: revokeOwnSession,
  }),
  defineRoute({ ...admin, method: 'GET', path: '/admin/users', summary: 'Local accounts', input: NoInput, output: UserList, audit: 'http', rateLimit: 'read', handler: listUsers }),
  defineRoute({
    ...admin,
    method: 'POST',
    path: '/admin/users',
    summary: 'Create a local account (password at least 8 characters); 409 when the username is taken',
    input: CreateUserInput,
    output: UserOutput,
    audit: 'auth',
    rateLimit: 'write',
    handler: createUser,
  }),
  defineRoute({
    ...admin,
    method: 'PATCH',
    path: '/admin/users/:username',
    summary: "Change a user's role or deactivate them; applies on their next request, API keys included. Deactivating revokes their API keys and connected apps for good",
    input: UpdateUserInput,
    output: UserOutput,
    audit: 'auth',
    rateLimit: 'write',
    handler: updateUser,
  }),
  defineRoute({ ...admin, method: 'GET', path: '/admin/sessions', summary: "Everyone's signed-in sessions", input: NoInput, output: SessionList, audit: 'http', rateLimit: 'read', handler: listAllSessions }),
  defineRoute({
    ...admin,
    method: 'DELETE',
    path: '/admin/sessions/:id',
    summary: 'Sign any session out, server-side',
    input: SessionIdInput,
    output: SessionRevoked,
    audit: 'auth',
    rateLimit: 'write',
    handler: revokeAnySession,
  }),
];
