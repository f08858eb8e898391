// Applications: saved label selectors across namespaces, with usage and network (spec §4 `/apps*`).
import { createApp, deleteApp, getApp, listApps, previewApp, updateApp } from './crud.ts';
import { appMetrics } from './metrics.ts';
import { appNetworkHistory } from './network-history.ts';
import { App, AppDefinition, AppDeleted, AppHistoryInput, AppIdInput, AppList, AppMetrics, AppNetworkHistory, AppPreview, UpdateAppInput } from '../../schema/apps.ts';
import { NoInput } from '../../schema/common.ts';
import { defineRoute, type Route } from '../route.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'apps:read' }, audit: 'access', rateLimit: 'read', feature: null } as const;
// Viewers cannot call writes (spec §5 "Application roles").
const write = { access: { auth: 'credential', role: 'admin', scope: 'apps:write' }, audit: 'http', rateLimit: 'write', feature: null } as const;

export const appRoutes: readonly Route[] = [
  defineRoute({ ...read, method: 'GET', path: '/apps', summary: 'Saved applications, by name', input: NoInput, output: AppList, handler: listApps }),
  defineRoute({
    ...write,
    method: 'POST',
    path: '/apps',
    summary: 'Save an application: a name, its namespaces and a label selector; 409 when the name is taken, 403 for a hidden namespace',
    input: AppDefinition,
    namespaceParam: 'namespaces',
    output: App,
    handler: createApp,
  }),
  defineRoute({
    ...read,
    method: 'POST',
    path: '/apps/preview',
    summary: 'The pods a definition would select now (first 200), without saving it',
    input: AppDefinition,
    namespaceParam: 'namespaces',
    output: AppPreview,
    handler: previewApp,
  }),
  defineRoute({ ...read, method: 'GET', path: '/apps/:id', summary: 'One application', input: AppIdInput, output: App, handler: getApp }),
  defineRoute({
    ...write,
    method: 'PUT',
    path: '/apps/:id',
    summary: "Replace an application's name, namespaces and selector; its id stays",
    input: UpdateAppInput,
    namespaceParam: 'namespaces',
    output: App,
    handler: updateApp,
  }),
  defineRoute({ ...write, method: 'DELETE', path: '/apps/:id', summary: 'Delete an application', input: AppIdInput, output: AppDeleted, handler: deleteApp }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/apps/:id/metrics',
    summary: 'Usage against requests and limits per member pod with flags, totals over measured pods, network per workload',
    input: AppIdInput,
    output: AppMetrics,
    handler: appMetrics,
  }),
  defineRoute({
    ...read,
    method: 'GET',
    path: '/apps/:id/network-history',
    summary: 'Received and transmitted bytes per second of each workload (window 1h|6h|24h|7d), from the kubelet scrape',
    input: AppHistoryInput,
    output: AppNetworkHistory,
    handler: appNetworkHistory,
  }),
];
