// Writes under `workloads:write`: an admin (a viewer is 403 whatever the key), each audited as
// a write, each only when the agent's RBAC grants it. docs/actions.md.
import { Allowed, AllowedInput, DeploymentInput, NodeInput, NodeSchedulable, PodDeleted, PodInput, Restarted, ScaleInput, Scaled } from '../../schema/actions.ts';
import { defineRoute, type Route } from '../route.ts';
import { allowedActions, cordonNode, deletePod, restartDeployment, scaleDeployment, uncordonNode } from './act.ts';

const write = { access: { auth: 'credential', role: 'admin', scope: 'workloads:write' }, audit: 'write', rateLimit: 'write', feature: null } as const;

export const actionRoutes: readonly Route[] = [
  defineRoute({
    ...write,
    audit: 'access',
    rateLimit: 'read',
    method: 'GET',
    path: '/actions/allowed',
    summary: "Which actions the agent's own RBAC allows on a kind (deployments, pods, nodes) in a namespace: what the dashboard offers",
    namespaceParam: 'namespace',
    input: AllowedInput,
    output: Allowed,
    handler: allowedActions,
  }),
  defineRoute({ ...write, method: 'POST', path: '/namespaces/:namespace/deployments/:name/restart', summary: 'Rolling restart of a Deployment (its pod template restamped)', namespaceParam: 'namespace', input: DeploymentInput, output: Restarted, handler: restartDeployment }),
  defineRoute({ ...write, method: 'POST', path: '/namespaces/:namespace/deployments/:name/scale', summary: 'Set a Deployment\'s replicas ({replicas}, 0–500)', namespaceParam: 'namespace', input: ScaleInput, output: Scaled, handler: scaleDeployment }),
  defineRoute({ ...write, method: 'DELETE', path: '/namespaces/:namespace/pods/:pod', summary: 'Delete a pod (its controller, if any, replaces it)', namespaceParam: 'namespace', input: PodInput, output: PodDeleted, handler: deletePod }),
  defineRoute({ ...write, method: 'POST', path: '/nodes/:name/cordon', summary: 'Mark a node unschedulable (its pods stay)', input: NodeInput, output: NodeSchedulable, handler: cordonNode }),
  defineRoute({ ...write, method: 'POST', path: '/nodes/:name/uncordon', summary: 'Mark a node schedulable again', input: NodeInput, output: NodeSchedulable, handler: uncordonNode }),
];
