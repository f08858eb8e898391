// GET /observability/scrape-config: the text of domain/observability/scrape-config.ts for the
// namespace Prometheus runs in (default `monitoring`), nothing applied; and GET
// /observability/metrics, Capstan's own metrics for that Prometheus to scrape.
import type * as v from 'valibot';
import { scrapeConfig } from '../../domain/observability/scrape-config.ts';
import type { ScrapeConfigAnswer, ScrapeConfigInput } from '../../schema/observability.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

export function getScrapeConfig(input: v.InferOutput<typeof ScrapeConfigInput>): Promise<Result<v.InferOutput<typeof ScrapeConfigAnswer>>> {
  return Promise.resolve(ok(scrapeConfig(input.namespace)));
}

/** GET /observability/metrics: Capstan's own metrics, in Prometheus' exposition format (the JSON form holds the same text). */
export async function getOwnMetrics(_input: object, ctx: HandlerContext): Promise<Result<{ metrics: string }>> {
  const { body, contentType } = await ctx.observability.ownMetrics.render();
  return ok({ metrics: body }, [{ kind: 'download', filename: 'metrics.txt', contentType, body }]);
}
