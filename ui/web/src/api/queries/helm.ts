// Helm (docs/helm.md): the releases in your namespaces (or one), one release's history and
// values (redacted by the agent), the dry run's diff, and the writes (install, upgrade,
// rollback, uninstall), each answered at once with the Task the tray follows. And Admin →
// Expert mode, the runtime switch every Helm route closes with (docs/expert-mode.md). A write
// refreshes the releases and the tasks; so does a Helm task that ends, and the switch.
import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Answer, type Body } from '../client';
import { tasks } from './tasks';

export type HelmRelease = Answer<'get_helm_releases'>['releases'][number];
export type HelmReleaseDetail = Answer<'get_helm_releases_by_namespace_by_name'>;
export type HelmRevision = HelmReleaseDetail['history'][number];
export type HelmStatus = HelmRelease['status'];
export type HelmDiff = Answer<'post_helm_releases_by_namespace_by_name_diff'>;
export type HelmTaskStarted = Answer<'post_helm_releases'>;
export type ExpertMode = Answer<'get_admin_expert_mode'>;

/** One release, as its path names it. */
export interface ReleaseRef {
  namespace: string;
  name: string;
}

/** An install or upgrade: the release, the chart (repository, name, version) and its values, --wait and its timeout. */
export type HelmInstall = Body<'post_helm_releases'>;
export type ChartSource = HelmInstall['chart'];
export type HelmUpgrade = ReleaseRef & Body<'post_helm_releases_by_namespace_by_name_upgrade'>;
export type HelmDiffRequest = ReleaseRef & Body<'post_helm_releases_by_namespace_by_name_diff'>;
export type HelmRollback = ReleaseRef & Body<'post_helm_releases_by_namespace_by_name_rollback'>;

const helmKey = ['helm'] as const;
const releasesKey = [...helmKey, 'releases'] as const;
const expertModeKey = ['admin', 'expert-mode'] as const;

/** A refusal that polling will not change (expert mode off, no expert pod, not allowed): stop asking until something invalidates it. */
const refused = (error: unknown): boolean => error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429;

/** The agent lists releases from a watch of Helm's release Secrets, kept a few seconds: polled, so a pending release is seen to settle. */
export const releases = (namespace?: string) =>
  queryOptions({
    queryKey: [...releasesKey, 'list', namespace ?? null],
    queryFn: () => unwrap(api.GET('/helm/releases', { params: { query: namespace ? { namespace } : {} } })),
    refetchInterval: (query) => (refused(query.state.error) ? false : 10_000),
  });

export const release = ({ namespace, name }: ReleaseRef) =>
  queryOptions({
    queryKey: [...releasesKey, 'detail', namespace, name],
    queryFn: () => unwrap(api.GET('/helm/releases/{namespace}/{name}', { params: { path: { namespace, name } } })),
    refetchInterval: (query) => (refused(query.state.error) ? false : 10_000),
  });

/** What a write changes: the releases (at once, and again when its Task ends) and the tray's rows (a new Task). */
const written = (queryClient: QueryClient) => Promise.all([queryClient.invalidateQueries({ queryKey: releasesKey }), queryClient.invalidateQueries({ queryKey: tasks().queryKey })]);

/** A Helm Task ended: what it changed shows in the releases. */
export const helmTaskEnded = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: releasesKey });

/** The dry run (a server-side install or upgrade, nothing written): asked for when the person presses Preview, so a mutation, not a cached query. */
export const diffRelease = () =>
  mutationOptions({
    mutationFn: ({ namespace, name, ...body }: HelmDiffRequest) => unwrap(api.POST('/helm/releases/{namespace}/{name}/diff', { params: { path: { namespace, name } }, body })),
  });

export const installRelease = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (install: HelmInstall) => unwrap(api.POST('/helm/releases', { body: install })),
    onSuccess: () => written(queryClient),
  });

export const upgradeRelease = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: ({ namespace, name, ...body }: HelmUpgrade) => unwrap(api.POST('/helm/releases/{namespace}/{name}/upgrade', { params: { path: { namespace, name } }, body })),
    onSuccess: () => written(queryClient),
  });

export const rollbackRelease = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: ({ namespace, name, revision }: HelmRollback) => unwrap(api.POST('/helm/releases/{namespace}/{name}/rollback', { params: { path: { namespace, name } }, body: { revision } })),
    onSuccess: () => written(queryClient),
  });

export const uninstallRelease = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: ({ namespace, name }: ReleaseRef) => unwrap(api.DELETE('/helm/releases/{namespace}/{name}', { params: { path: { namespace, name } } })),
    onSuccess: () => written(queryClient),
  });

/** Admin → Expert mode (an admin's session only): whether it is on, and whether the chart installed the expert pod. */
export const expertMode = () => queryOptions({ queryKey: expertModeKey, queryFn: () => unwrap(api.GET('/admin/expert-mode')) });

/** Every Helm answer opens or closes with the switch, so they are asked again. */
export const setExpertMode = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (enabled: boolean) => unwrap(api.PUT('/admin/expert-mode', { body: { enabled } })),
    onSuccess: async (saved) => {
      queryClient.setQueryData(expertModeKey, saved);
      await queryClient.invalidateQueries({ queryKey: helmKey });
    },
  });

/** The dashboard's address of one release. */
export const releaseHref = ({ namespace, name }: ReleaseRef): string => `/helm/releases/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;

export type HelmConfig = Answer<'get_helm_configs'>['configs'][number];
export type HelmConfigInput = Body<'post_helm_configs'>;
const configsKey = [...helmKey, 'configs'] as const;

/** Saved Helm configs (an admin's session only): repositories and registries, a password shown as •••• at most. */
export const helmConfigs = () => queryOptions({ queryKey: configsKey, queryFn: () => unwrap(api.GET('/helm/configs')) });

export const createHelmConfig = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (config: HelmConfigInput) => unwrap(api.POST('/helm/configs', { body: config })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: configsKey }),
  });

export const deleteHelmConfig = (queryClient: QueryClient) =>
  mutationOptions({
    mutationFn: (id: number) => unwrap(api.DELETE('/helm/configs/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: configsKey }),
  });
