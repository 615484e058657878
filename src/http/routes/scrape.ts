// /v1/scrape/targets: the configured scrape targets and their health. Any role of the
// account that owns a job's data sees its targets; an admin token sees every job's.
import Router from '@koa/router';
import type { Ctx, RequestState } from '../state.js';
import { queryOne } from '../request.js';
import { paramError } from '../../errors.js';
import type { ScrapeScheduler, TargetView } from '../../scrape/scheduler.js';


export interface ScrapeDeps {
  scrape: ScrapeScheduler;
}

const HEALTH = ['up', 'down', 'unknown'];

function targetView(t: TargetView) {
  return {
    job: t.job,
    url: t.url,
    labels: Object.fromEntries(t.labels),
    discovered_labels: Object.fromEntries(t.discoveredLabels),
    scrape_interval_seconds: t.intervalMs / 1000,
    scrape_timeout_seconds: t.timeoutMs / 1000,
    health: t.health,
    last_scrape: t.lastScrape === null ? null : Math.floor(t.lastScrape / 1000),
    last_scrape_duration_seconds: t.lastScrapeDurationMs === null ? null : Math.round(t.lastScrapeDurationMs) / 1000,
    samples_scraped: t.samplesScraped,
    samples_stored: t.samplesStored,
    last_error: t.lastError,
  };
}

export function scrapeRoutes(deps: ScrapeDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/scrape' });

  r.get('/targets', (ctx: Ctx) => {
    const principal = ctx.state.principal!;
    const visible = (account: number | null) => principal.token.role === 'admin' || account === principal.account.id;
    const job = queryOne(ctx, 'job') ?? null;
    const health = queryOne(ctx, 'health') ?? null;
    if (health !== null && !HEALTH.includes(health)) throw paramError('health', `must be one of ${HEALTH.join(', ')}`);
    const targets = deps.scrape.targets()
      .filter((t) => visible(t.account) && (job === null || t.job === job) && (health === null || t.health === health))
      .sort((a, b) => (a.job < b.job ? -1 : a.job > b.job ? 1 : a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    const jobs = deps.scrape.jobs()
      .filter((j) => visible(j.account) && (job === null || j.job === job))
      .map((j) => ({
        job: j.job,
        account_found: j.account !== null,
        dropped_targets: j.dropped,
        invalid_targets: j.invalid.map((i) => ({ discovered_labels: Object.fromEntries(i.labels), error: i.error })),
      }));
    ctx.body = { targets: targets.map(targetView), jobs, query: { found: targets.length, total: targets.length } };
  });

  return r;
}
