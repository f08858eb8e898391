// GET /observability/scrape-config: the text of domain/observability/scrape-config.ts for the
// namespace Prometheus runs in (default `monitoring`), nothing applied; and GET
// /observability/metrics, Capstan's own metrics for that Prometheus to scrape.
import type * as v from 'valibot';
import { scrapeConfig } from '../../domain/observability/scrape-config.ts';
import type { OwnMetricsInput, ScrapeConfigAnswer, ScrapeConfigInput } from '../../schema/observability.ts';
import type { HandlerContext } from '../context.ts';
import { ok, type Result } from '../result.ts';

export function getScrapeConfig(input: v.InferOutput<typeof ScrapeConfigInput>): Promise<Result<v.InferOutput<typeof ScrapeConfigAnswer>>> {
  return Promise.resolve(ok(scrapeConfig(input.namespace)));
}

/** GET /observability/metrics: Capstan's own metrics; with format=prometheus (what a scrape job asks) the exposition text itself. */
export async function getOwnMetrics(input: v.InferOutput<typeof OwnMetricsInput>, ctx: HandlerContext): Promise<Result<{ metrics: string }>> {
  const { body, contentType } = await ctx.observability.ownMetrics.render();
  return ok({ metrics: body }, input.format === 'prometheus' ? [{ kind: 'download', filename: 'metrics.txt', contentType, body }] : []);
}
