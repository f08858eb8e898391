import type { Result } from '../result.ts';
import type { HelmConfigInput, HelmDiffInput, HelmInstallInput, HelmRollbackInput, HelmUpgradeInput } from '../../schema/helm.ts';
import type { Out } from '../../schema/common.ts';
import type { HelmDiff } from '../../schema/helm.ts';

/** A Helm write as the agent asks the expert pod for it; each one is a Task. */
export type HelmWrite =
  | ({ operation: 'install' } & HelmInstallInput)
  | ({ operation: 'upgrade' } & HelmUpgradeInput)
  | ({ operation: 'rollback' } & HelmRollbackInput)
  | { operation: 'uninstall'; namespace: string; name: string };

/**
 * Helm through the expert pod (runtime/helm/helm-service.ts): one release's values, the dry
 * run's diff, and the writes, each started as a Task that ends when the expert answers. The
 * release list reaches handlers cut to the caller's namespaces (`HandlerContext.helmReleases`).
 */
export interface HelmService {
  /** Whether the chart provisioned the expert pod (expertMode.enabled). */
  readonly provisioned: boolean;
  values(namespace: string, name: string): Promise<Result<Record<string, unknown>>>;
  diff(input: HelmDiffInput): Promise<Result<Out<typeof HelmDiff>>>;
  /** Starts `write` as a Task by `actor`; answers the Task's id at once. */
  start(write: HelmWrite, actor: string): Promise<Result<{ taskId: string }>>;
}

/** A saved Helm repository or registry as handlers see it: the password never, only whether one is saved. */
export interface HelmConfig {
  id: number;
  name: string;
  kind: 'repository' | 'oci';
  url: string;
  username: string | null;
  plainHttp: boolean;
  hasPassword: boolean;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Saved Helm configs (runtime/helm/config-store.ts): passwords sealed at rest, never answered. */
export interface HelmConfigStore {
  list(): Promise<HelmConfig[]>;
  create(input: HelmConfigInput, actor: string): Promise<Result<HelmConfig>>;
  /** `password` absent keeps the saved one; "" removes it. */
  update(id: number, input: HelmConfigInput): Promise<Result<HelmConfig>>;
  remove(id: number): Promise<Result<{ id: number }>>;
}
