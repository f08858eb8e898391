// Helm (docs/helm.md) and the expert-mode switch (docs/expert-mode.md). Every Helm route goes
// through the expert pod, so every one closes with the runtime switch (403 expert_mode_disabled).
import { NoInput } from '../../schema/common.ts';
import { ExpertModeState, ExpertModeSwitch, HelmConfigDeleted, HelmConfigId, HelmConfigInput, HelmConfigList, HelmConfigOut, HelmConfigUpdate, HelmDiff, HelmDiffInput, HelmInstallInput, HelmReleaseDetail, HelmReleaseList, HelmReleaseListInput, HelmReleaseRef, HelmRollbackInput, HelmTaskStarted, HelmUpgradeInput } from '../../schema/helm.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';
import { createConfig, deleteConfig, listConfigs, updateConfig } from './configs.ts';
import { getExpertMode, setExpertMode } from './expert-mode.ts';
import { diffRelease, installRelease, rollbackRelease, uninstallRelease, upgradeRelease } from './operations.ts';
import { getRelease, listReleases } from './releases.ts';

const read = { access: { auth: 'credential', role: 'viewer', scope: 'helm:read' }, audit: 'access', rateLimit: 'read', feature: null, killSwitch: 'expert_mode' } as const;
/** Saved configs decrypt on read (spec §5): admin sessions only, never a key or token. */
const configs = { ...noApiKeys('admin'), killSwitch: 'expert_mode' } as const;
const write = { access: { auth: 'credential', role: 'admin', scope: 'helm:write' }, audit: 'write', rateLimit: 'write', feature: null, killSwitch: 'expert_mode' } as const;

export const helmRoutes: readonly Route[] = [
  defineRoute({ ...read, method: 'GET', path: '/helm/releases', summary: 'Helm releases in your namespaces (query namespace to narrow): status, chart, app version, revision, and a stuck-release diagnosis with its safe recovery', namespaceParam: 'namespace', input: HelmReleaseListInput, output: HelmReleaseList, handler: listReleases }),
  defineRoute({ ...read, method: 'GET', path: '/helm/releases/:namespace/:name', summary: "One release: its revision history and the current revision's values, secret-looking values redacted", namespaceParam: 'namespace', input: HelmReleaseRef, output: HelmReleaseDetail, handler: getRelease }),
  defineRoute({ ...write, audit: 'http', method: 'POST', path: '/helm/releases/:namespace/:name/diff', summary: "A server-side dry run of an install or upgrade ({chart: {repo_url, name, version}, values}): the unified diff of the manifests, Secrets' data hidden", namespaceParam: 'namespace', bodyLimitBytes: 256 * 1024, input: HelmDiffInput, output: HelmDiff, handler: diffRelease }),
  defineRoute({ ...write, method: 'POST', path: '/helm/releases', summary: 'Install a chart from a repository ({namespace, name, chart, values, wait, timeout_secs}) through the expert pod: answers the Task at once', namespaceParam: 'namespace', bodyLimitBytes: 256 * 1024, input: HelmInstallInput, output: HelmTaskStarted, handler: installRelease }),
  defineRoute({ ...write, method: 'POST', path: '/helm/releases/:namespace/:name/upgrade', summary: 'Upgrade a release to a chart version with values, as a Task', namespaceParam: 'namespace', bodyLimitBytes: 256 * 1024, input: HelmUpgradeInput, output: HelmTaskStarted, handler: upgradeRelease }),
  defineRoute({ ...write, method: 'POST', path: '/helm/releases/:namespace/:name/rollback', summary: 'Roll a release back to a revision ({revision}), as a Task; the recovery of a stuck release', namespaceParam: 'namespace', input: HelmRollbackInput, output: HelmTaskStarted, handler: rollbackRelease }),
  defineRoute({ ...write, method: 'DELETE', path: '/helm/releases/:namespace/:name', summary: 'Uninstall a release, as a Task', namespaceParam: 'namespace', input: HelmReleaseRef, output: HelmTaskStarted, handler: uninstallRelease }),
  defineRoute({ ...configs, audit: 'http', rateLimit: 'read', method: 'GET', path: '/helm/configs', summary: 'Saved Helm configs (admin session only): repositories and OCI registries with their username; a password shows as •••• and is never answered', input: NoInput, output: HelmConfigList, handler: listConfigs }),
  defineRoute({ ...configs, audit: 'write', rateLimit: 'write', method: 'POST', path: '/helm/configs', summary: 'Save a Helm config ({name, url: https repository or oci://host/path, username, password, plain_http}); the password sealed at rest', input: HelmConfigInput, output: HelmConfigOut, handler: createConfig }),
  defineRoute({ ...configs, audit: 'write', rateLimit: 'write', method: 'PUT', path: '/helm/configs/:id', summary: 'Replace a saved Helm config; password absent keeps the saved one, "" removes it', input: HelmConfigUpdate, output: HelmConfigOut, handler: updateConfig }),
  defineRoute({ ...configs, audit: 'write', rateLimit: 'write', method: 'DELETE', path: '/helm/configs/:id', summary: 'Delete a saved Helm config', input: HelmConfigId, output: HelmConfigDeleted, handler: deleteConfig }),
  defineRoute({ ...noApiKeys('admin'), audit: 'http', rateLimit: 'read', method: 'GET', path: '/admin/expert-mode', summary: 'Whether expert mode is on, and whether the chart installed the expert pod', input: NoInput, output: ExpertModeState, handler: getExpertMode }),
  defineRoute({ ...noApiKeys('admin'), audit: 'auth', rateLimit: 'write', method: 'PUT', path: '/admin/expert-mode', summary: 'Turn expert mode on or off (admin session only): off, every Helm route answers 403 expert_mode_disabled; on only where the chart installed the expert pod', input: ExpertModeSwitch, output: ExpertModeState, handler: setExpertMode }),
];
