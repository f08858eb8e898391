// `GET /diagnosis` and `GET /diagnosis/{id}`: the one whole-cluster diagnosis, as the runtime
// hands it out already cut to what the caller may see. The rules: docs/diagnosis.md.
import type { Diagnosis, DiagnosisDetail, DiagnosisDetailInput, DiagnosisInput } from '../../schema/diagnosis.ts';
import type { Out } from '../../schema/common.ts';
import { parseNodeId } from '../../domain/cluster/node-id.ts';
import type { HandlerContext } from '../context.ts';
import { namespaceRefusal } from '../namespaces/scope.ts';
import { fail, ok, type Result } from '../result.ts';

/** Root causes with their effects and evidence, severity first; `namespace` keeps those touching it (a hidden one is refused before this runs). */
export function diagnosis(input: Out<typeof DiagnosisInput>, ctx: HandlerContext): Result<Diagnosis> {
  return ok(ctx.diagnosis.answer(input.namespace ?? null));
}

/** Why one object is unhealthy: 403 in a hidden namespace, 404 for an object the cluster model does not hold. */
export function diagnosisDetail(input: Out<typeof DiagnosisDetailInput>, ctx: HandlerContext): Result<DiagnosisDetail> {
  const parsed = parseNodeId(input.id);
  if (parsed === null || parsed.kind === 'Problem') return fail({ code: 'not_found', message: `no ${input.id} in the cluster model` });
  const refused = namespaceRefusal(ctx.cluster, parsed.namespace);
  if (refused) return fail(refused);
  // A volume bound to a hidden claim is not in the caller's model at all: the same 404 as the graph's.
  const detail = ctx.diagnosis.detail(input.id);
  return detail === null ? fail({ code: 'not_found', message: `no ${input.id} in the cluster model` }) : ok(detail);
}
