// A container's logs: the tail as one answer (the logs route, MCP's get_logs), or the tail and
// every new line as a stream. Every line leaves redacted; which container is checked against
// the pod the informer holds, so a name the pod does not have is a 400, not an API call.
import type { PodObject } from '../../domain/cluster/model.ts';
import { inNamespace } from '../../domain/cluster/by-namespace.ts';
import { lineRedactor, redactText } from '../../domain/redaction/redact.ts';
import type { Out } from '../../schema/common.ts';
import type { ContainerLog, ContainerLogEvent, ContainerLogInput } from '../../schema/logs.ts';
import type { HandlerContext } from '../context.ts';
import { fail, ok, type Result } from '../result.ts';
import type { StreamAnswer } from '../route.ts';

/** What one tail may carry: past it the answer says `truncated`. */
export const TAIL_MAX_BYTES = 4 * 1024 * 1024;

interface Target {
  pod: PodObject;
  container: string;
}

/** The pod and container asked for, or the 404 / 400 that says which is missing. */
function targetOf(input: Pick<ContainerLogInput, 'namespace' | 'pod' | 'container'>, ctx: HandlerContext): Result<Target> {
  const pod = inNamespace(ctx.cluster.pods(), input.namespace).find((p) => p.name === input.pod);
  if (!pod) return fail({ code: 'not_found', message: `no pod ${input.namespace}/${input.pod}` });
  const names = [...pod.containers, ...pod.initContainers].map((c) => c.name);
  const container = input.container ?? pod.containers[0]?.name;
  if (container === undefined) return fail({ code: 'invalid_input', field: 'container', message: `pod ${pod.name} has no containers` });
  if (!names.includes(container)) return fail({ code: 'invalid_input', field: 'container', message: `pod ${pod.name} has no container ${container} (it has ${names.join(', ')})` });
  return ok({ pod, container });
}

/** The last `tail_lines` lines (of the previous instance with `previous`), redacted. */
export async function readContainerLog(input: ContainerLogInput, ctx: HandlerContext): Promise<Result<Out<typeof ContainerLog>>> {
  const target = targetOf(input, ctx);
  if (!target.ok) return target;
  const { pod, container } = target.value;
  const read = await ctx.logs.tail(pod.namespace, pod.name, container, {
    previous: input.previous,
    lines: input.tail_lines,
    limitBytes: TAIL_MAX_BYTES,
    ...(input.since_seconds === undefined ? {} : { sinceSeconds: input.since_seconds }),
  });
  if (!read.ok) return fail({ code: 'not_found', message: `logs unavailable: ${read.reason}` });
  const text = read.text.endsWith('\n') ? read.text.slice(0, -1) : read.text;
  return ok({
    namespace: pod.namespace,
    pod: pod.name,
    container,
    previous: input.previous,
    lines: text === '' ? [] : redactText(text).split('\n'),
    truncated: new TextEncoder().encode(read.text).length >= TAIL_MAX_BYTES,
  });
}

/**
 * The follow route: the tail, then each new line as it is written, redacted one by one, until
 * the client goes away or the follow's caps end it (its last event says why). The previous
 * instance has ended: its stream is its tail, then the end.
 */
export function followContainerLog(input: ContainerLogInput, ctx: HandlerContext): Result<StreamAnswer<ContainerLogEvent, never>> {
  const target = targetOf(input, ctx);
  if (!target.ok) return target;
  const { pod, container } = target.value;
  const options = { tailLines: input.tail_lines, ...(input.since_seconds === undefined ? {} : { sinceSeconds: input.since_seconds }) };
  return ok({
    async *events(signal) {
      if (input.previous) {
        const read = await readContainerLog({ ...input, container }, ctx);
        if (!read.ok) {
          yield { type: 'end', reason: 'error', message: read.error.message };
          return;
        }
        for (const line of read.value.lines) yield { type: 'line', line };
        yield { type: 'end', reason: 'ended', message: null };
        return;
      }
      const redact = lineRedactor();
      for await (const chunk of ctx.logs.follow(pod.namespace, pod.name, container, options, signal)) {
        yield chunk.type === 'line' ? { type: 'line', line: redact(chunk.line) } : chunk;
      }
    },
  });
}
