import { creditOf } from '../../../core/account/funds';
import { toolErrors } from '../../../core/agent/errors';
import { readInstanceInput, readJobOutputInput, readOffersInput } from '../../../core/agent/inputs';
import { accountText, instancesText, jobOutputText, offersText } from '../../../core/agent/results';
import { readMonthTotals } from '../../../core/billing/monthTotals';
import { checkHealth } from '../../../core/health/check';
import { l10n } from '../../../core/l10n';
import { instanceName } from '../../../core/instances/names';
import { instancePhase } from '../../../core/instances/phase';
import { burnRate } from '../../../core/instances/rates';
import { JobMissing, readLog } from '../../../core/jobs/remoteJobs';
import { statsWithin } from '../../../core/offers/priceSource';
import { searchRequest } from '../../../core/offers/search';
import { isBidQuery } from '../../../core/rent/bid';
import * as vscode from 'vscode';
import { healthDeps } from '../health';
import { queryProblem } from '../offers';
import { config } from '../../host/config';
import type { AgentDeps } from './tools';
import { ensureSession, instanceById, type ToolBody } from './toolKit';

/** How long a list waits for the instances' job listings (one ssh call each, side by side). */
const JOB_LISTING_WAIT_MS = 8_000;
/** How much of a job's log is read for its tail. */
const LOG_TAIL_BYTES = 64 * 1024;
/** How long the price context may take before offers are listed without it (as the rent confirmation waits). */
const PRICE_CONTEXT_WAIT_MS = 2_000;

/** Search Offers: the Offers view's query language and sorts, the price context beside each offer; the view's own search is not changed. */
export function searchOffersTool(s: AgentDeps): ToolBody {
  return {
    async invoke(raw, signal) {
      const input = readOffersInput(raw);
      ensureSession(s.session);
      const problem = queryProblem(input.query);
      if (problem) throw toolErrors.badQuery(problem);
      const request = searchRequest({ query: input.query, sort: input.sort, pages: 1 }, input.limit);
      const offers = (await s.session.client.offers.search(request, { signal })).slice(0, input.limit);
      const stats = s.priceContext
        ? await statsWithin(
            s.priceContext,
            offers.map((o) => o.gpu_name),
            PRICE_CONTEXT_WAIT_MS,
          )
        : new Map();
      return offersText(offers, input, stats, isBidQuery(input.query));
    },
  };
}

/** Waits at most `ms` for `work`; never rejects (a listing that fails keeps its last rows). */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** List Instances: the Instances view's rows (a fresh poll), the jobs under each running one (listed again), the total burn. */
export function listInstancesTool(s: AgentDeps): ToolBody {
  return {
    async invoke() {
      ensureSession(s.session);
      await s.poller.refresh();
      const instances = s.poller.snapshot?.instances ?? [];
      const book = s.jobs.book;
      await within(Promise.all(instances.filter((i) => book.instanceRuns(i.id)).map((i) => book.list(i.id))), JOB_LISTING_WAIT_MS);
      return instancesText(instances, (id) => book.rows(id), burnRate(instances), Date.now());
    },
  };
}

/** Job Output: a job's status from a fresh listing, and the last lines of its log read over ssh. */
export function jobOutputTool(s: AgentDeps): ToolBody {
  return {
    async invoke(raw, signal) {
      const input = readJobOutputInput(raw);
      ensureSession(s.session);
      const instance = await instanceById(s, input.instanceId, signal);
      const book = s.jobs.book;
      const running = instancePhase(instance) === 'running';
      if (running) await book.list(instance.id);
      const rows = book.rows(instance.id);
      const row = input.jobId ? rows.find((r) => r.jobId === input.jobId) : rows[rows.length - 1];
      if (!row) throw input.jobId ? toolErrors.jobNotFound(input.jobId, instanceName(instance)) : toolErrors.noJob(instanceName(instance));
      if (!running) return jobOutputText(instance, row, undefined, input.lines);
      const size = book.statusesOf(instance.id).find((j) => j.jobId === row.jobId)?.logBytes ?? 0;
      const offset = Math.max(0, size - LOG_TAIL_BYTES);
      let log: string;
      try {
        const target = await s.health.sshTarget(instance);
        log = await readLog(target, row.jobId, offset, { jobsDir: book.jobsDir, maxBytes: 2 * LOG_TAIL_BYTES, signal });
      } catch (error) {
        if (error instanceof JobMissing) throw toolErrors.jobNotFound(row.jobId, instanceName(instance));
        throw error;
      }
      // Read from the middle of the log: its first line is cut.
      const whole = offset > 0 ? log.slice(log.indexOf('\n') + 1) : log;
      return jobOutputText(instance, row, whole, input.lines);
    },
  };
}

/** Check Machine Health: the command's check (nvidia-smi, the disk, a write) and its verdict; Destroy stays a separate tool. */
export function checkHealthTool(s: AgentDeps): ToolBody {
  return {
    async invoke(raw, signal) {
      const { instanceId } = readInstanceInput(raw);
      ensureSession(s.session);
      const instance = await instanceById(s, instanceId, signal);
      const end = await checkHealth(healthDeps(s.health), instance);
      if (end.kind === 'cancelled') throw new vscode.CancellationError();
      if (end.kind !== 'checked') throw toolErrors.refused(end.notice.text);
      return end.verdict.matches
        ? end.notice.text
        : `${end.notice.text} ${l10n.t('To give it back, call gpuRental_destroyInstance (the person confirms).')}`;
    },
  };
}

/** The account: its credit (read fresh), the burn of the last poll, the spend cap, this and last month's charges. */
export function accountTool(s: AgentDeps): ToolBody {
  return {
    async invoke() {
      ensureSession(s.session);
      await Promise.all([s.session.refresh(), s.poller.refresh()]);
      const state = s.session.state;
      const months = await readMonthTotals(s.session.client.billing, Date.now()).catch(() => undefined);
      return accountText({
        credit: state.kind === 'ready' ? creditOf(state.user) : undefined,
        burn: burnRate(s.poller.snapshot?.instances ?? []),
        cap: config.maxHourlySpend(),
        months,
      });
    },
  };
}
