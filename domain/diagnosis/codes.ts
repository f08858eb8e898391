// The one list of finding codes: each analyzer module declares its own, this joins them.
// docs/diagnosis.md documents every entry (a unit test keeps the two in step).
import type { Severity } from '../../schema/common.ts';
import { AUTOSCALING_CODES } from './analyzers/autoscaling.ts';
import { JOB_CODES } from './analyzers/jobs.ts';
import { NETWORK_CODES } from './analyzers/network.ts';
import { NODE_CODES } from './analyzers/nodes.ts';
import { POD_CODES } from './analyzers/pods.ts';
import { QUOTA_CODES } from './analyzers/quota.ts';
import { STORAGE_CODES } from './analyzers/storage.ts';
import { WORKLOAD_CODES } from './analyzers/workloads.ts';

export interface CodeSpec {
  code: string;
  /** The kind of object the finding is about. */
  kind: string;
  severity: Severity;
  /** The rule, in one sentence, as docs/diagnosis.md states it. */
  rule: string;
  /** What the finding shows as evidence and what it suspects, in one sentence (docs/diagnosis.md's table; optional). */
  evidence?: string;
}

export const CODES: readonly CodeSpec[] = [...NODE_CODES, ...POD_CODES, ...WORKLOAD_CODES, ...JOB_CODES, ...NETWORK_CODES, ...STORAGE_CODES, ...QUOTA_CODES, ...AUTOSCALING_CODES];
