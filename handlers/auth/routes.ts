// Signing in and out with a password, and who the current credential is.
import { login } from './login.ts';
import { logout, me } from './session.ts';
import { LoginInput, LoginOutput, LogoutOutput, Me } from '../../schema/auth.ts';
import { NoInput } from '../../schema/common.ts';
import { defineRoute, type Route } from '../route.ts';

export const authRoutes: readonly Route[] = [
  defineRoute({
    method: 'POST',
    path: '/auth/login',
    summary: 'Password sign-in; sets the capstan_session cookie. 429 after 6 failures for one account from one address',
    input: LoginInput,
    output: LoginOutput,
    access: { auth: 'public' },
    audit: 'login',
    rateLimit: 'login',
    feature: null,
    handler: login,
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/logout',
    summary: 'Revoke the current session server-side and clear its cookie',
    input: NoInput,
    output: LogoutOutput,
    access: { auth: 'credential', role: 'viewer', scope: null },
    audit: 'login',
    rateLimit: 'write',
    feature: null,
    handler: logout,
  }),
  defineRoute({
    method: 'GET',
    path: '/me',
    summary: 'Who the current credential acts as',
    input: NoInput,
    output: Me,
    access: { auth: 'credential', role: 'viewer', scope: null },
    audit: 'access',
    rateLimit: 'read',
    feature: null,
    handler: me,
  }),
];
