// The route table: the list of every capability's declarations (each in its folder's
// routes.ts, beside its handlers and service interface). The runtime builds the HTTP app from
// it; the OpenAPI document is generated from it. Nothing else registers routes.
import { accountRoutes } from '../handlers/accounts/routes.ts';
import { actionRoutes } from '../handlers/actions/routes.ts';
import { apiKeyRoutes } from '../handlers/api-keys/routes.ts';
import { appRoutes } from '../handlers/apps/routes.ts';
import { auditRoutes } from '../handlers/audit/routes.ts';
import { authRoutes } from '../handlers/auth/routes.ts';
import { copilotRoutes } from '../handlers/copilot/routes.ts';
import { diagnosisRoutes } from '../handlers/diagnosis/routes.ts';
import { graphRoutes } from '../handlers/graph/routes.ts';
import { healthRoutes } from '../handlers/health/routes.ts';
import { helmRoutes } from '../handlers/helm/routes.ts';
import { incidentRoutes } from '../handlers/incidents/routes.ts';
import { licenseRoutes } from '../handlers/license/routes.ts';
import { logRoutes } from '../handlers/logs/routes.ts';
import { mcpRoutes } from '../handlers/mcp/routes.ts';
import { resourceRoutes } from '../handlers/resources/routes.ts';
import { terminalRoutes } from '../handlers/terminal/routes.ts';
import { taskRoutes } from '../handlers/tasks/routes.ts';
import { metricsRoutes } from '../handlers/metrics/routes.ts';
import { namespaceRoutes } from '../handlers/namespaces/routes.ts';
import { observabilityRoutes } from '../handlers/observability/routes.ts';
import { oauthRoutes } from '../handlers/oauth/routes.ts';
import type { Route } from '../handlers/route.ts';
import { securityRoutes } from '../handlers/security/routes.ts';
import { settingsRoutes } from '../handlers/settings/routes.ts';
import { ssoRoutes } from '../handlers/sso/routes.ts';
import { mcpProtocolEndpoint } from './mcp/protocol-endpoint.ts';

export const routes: readonly Route[] = [
  ...healthRoutes,
  ...authRoutes,
  ...namespaceRoutes,
  ...logRoutes,
  ...resourceRoutes,
  ...actionRoutes,
  ...terminalRoutes,
  ...taskRoutes,
  ...helmRoutes,
  ...apiKeyRoutes,
  ...incidentRoutes,
  ...metricsRoutes,
  ...observabilityRoutes,
  ...diagnosisRoutes,
  ...securityRoutes,
  ...appRoutes,
  ...graphRoutes,
  ...mcpRoutes,
  ...copilotRoutes,
  ...oauthRoutes,
  ...accountRoutes,
  ...settingsRoutes,
  ...licenseRoutes,
  ...ssoRoutes,
  ...auditRoutes,
];

/** Endpoints that speak their own protocol, behind the same policy chain: MCP's SDK transport. */
export const rawEndpoints = [mcpProtocolEndpoint] as const;
