// Your own account: second factor and sessions. Sessions only; no API key reaches these.
import { beginEnrolment, confirmEnrolment, disableSecondFactor, secondFactorStatus } from '../../handlers/accounts/second-factor.ts';
import { listOwnSessions, revokeOwnSession } from '../../handlers/accounts/sessions.ts';
import { CodeInput, Enrolment, SecondFactorStatus, SessionIdInput, SessionList, SessionRevoked } from '../../schema/accounts.ts';
import { NoInput } from '../../schema/common.ts';
import { defineRoute, type Route } from '../http/route.ts';
import { noApiKeys } from './access.ts';

const own = noApiKeys('viewer');

export const accountRoutes: readonly Route[] = [
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
];
