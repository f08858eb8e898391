// The route table: every endpoint, its schemas and its policy, in one place. The runtime
// builds the HTTP app from it; the OpenAPI document is generated from it.
import { copilotChatEndpoint, copilotRoutes } from './routes/copilot.ts';
import { liveness, readiness } from '../handlers/health/probes.ts';
import { createOwnApiKey, listAllApiKeys, listOwnApiKeys, revokeAnyApiKey, revokeOwnApiKey } from '../handlers/api-keys/keys.ts';
import { login } from '../handlers/auth/login.ts';
import { logout, me } from '../handlers/auth/session.ts';
import { listNamespaces } from '../handlers/namespaces/list.ts';
import { ApiKeyIdInput, ApiKeyList, CreateApiKeyInput, CreatedApiKey, Revoked } from '../schema/api-keys.ts';
import { LoginInput, LoginOutput, LogoutOutput, Me } from '../schema/auth.ts';
import { NoInput } from '../schema/common.ts';
import { Liveness, Readiness } from '../schema/health.ts';
import { NamespaceList } from '../schema/namespaces.ts';
import { accountRoutes } from './routes/accounts.ts';
import { appRoutes } from './routes/apps.ts';
import { graphRoutes } from './routes/graph.ts';
import { mcpProtocolEndpoint, mcpRoutes } from './routes/mcp.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { adminRoutes } from './routes/admin.ts';
import { licenseRoutes } from './routes/license.ts';
import { ssoRoutes } from './routes/sso.ts';
import { ssoRoleRoutes } from './routes/sso-roles.ts';
import { auditRoutes } from './routes/audit.ts';
import { readCoreRoutes } from './routes/read-core.ts';
import { diagnosisRoutes } from './routes/diagnosis.ts';
import { securityRoutes } from './routes/security.ts';
import { securityScanRoutes } from './routes/security-scan.ts';
import { defineRoute, type Route } from './http/route.ts';
import { noApiKeys } from './routes/access.ts';

const probe = { probe: true, access: { auth: 'public' }, audit: 'none', feature: null, input: NoInput } as const;

export const routes: readonly Route[] = [
  defineRoute({ ...probe, method: 'GET', path: '/healthz', summary: 'Liveness probe', output: Liveness, handler: liveness }),
  defineRoute({
    ...probe,
    method: 'GET',
    path: '/readyz',
    summary: 'Readiness probe: 200 once the informer cache has synced, 503 before',
    output: Readiness,
    handler: readiness,
  }),
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
  defineRoute({
    method: 'GET',
    path: '/namespaces',
    summary: 'Namespaces this credential may see, after the system blocklist and tenantNamespaces',
    input: NoInput,
    output: NamespaceList,
    access: { auth: 'credential', role: 'viewer', scope: 'workloads:read' },
    audit: 'access',
    rateLimit: 'read',
    feature: null,
    handler: listNamespaces,
  }),
  defineRoute({
    ...noApiKeys('viewer'),
    method: 'POST',
    path: '/me/api-keys',
    summary: 'Mint an API key for yourself; the key is in this response only',
    input: CreateApiKeyInput,
    output: CreatedApiKey,
    audit: 'auth',
    rateLimit: 'write',
    handler: createOwnApiKey,
  }),
  defineRoute({
    ...noApiKeys('viewer'),
    method: 'GET',
    path: '/me/api-keys',
    summary: 'Your API keys (never the secrets)',
    input: NoInput,
    output: ApiKeyList,
    audit: 'http',
    rateLimit: 'read',
    handler: listOwnApiKeys,
  }),
  defineRoute({
    ...noApiKeys('viewer'),
    method: 'DELETE',
    path: '/me/api-keys/:id',
    summary: 'Revoke one of your API keys',
    input: ApiKeyIdInput,
    output: Revoked,
    audit: 'auth',
    rateLimit: 'write',
    handler: revokeOwnApiKey,
  }),
  defineRoute({
    ...noApiKeys('admin'),
    method: 'GET',
    path: '/admin/api-keys',
    summary: "Every user's API keys (admin)",
    input: NoInput,
    output: ApiKeyList,
    audit: 'http',
    rateLimit: 'read',
    handler: listAllApiKeys,
  }),
  defineRoute({
    ...noApiKeys('admin'),
    method: 'DELETE',
    path: '/admin/api-keys/:id',
    summary: "Revoke anyone's API key (admin); admins cannot mint keys for others",
    input: ApiKeyIdInput,
    output: Revoked,
    audit: 'auth',
    rateLimit: 'write',
    handler: revokeAnyApiKey,
  }),
  ...readCoreRoutes,
  ...diagnosisRoutes,
  ...securityRoutes,
  ...securityScanRoutes,
  ...appRoutes,
  ...graphRoutes,
  ...mcpRoutes,
  ...copilotRoutes,
  ...oauthRoutes,
  ...accountRoutes,
  ...adminRoutes,
  ...licenseRoutes,
  ...ssoRoutes,
  ...ssoRoleRoutes,
  ...auditRoutes,
];

/** Endpoints that speak their own protocol, behind the same policy chain. */
export const rawEndpoints = [mcpProtocolEndpoint, copilotChatEndpoint] as const;
