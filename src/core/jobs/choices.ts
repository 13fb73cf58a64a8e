/**
 * What the user chose for a job, kept on this machine: the outbid policy and its ceiling, and
 * whether the instance stops at the job's end. The instance holds a copy of each (the wrapper and
 * the start-up hook read them there), but the instance is not the user's: its image, its host or
 * the job itself can rewrite any file in the job's folder. So what the extension decides with money
 * (a bid it sends, a rent it makes for a move) comes from here, never from the instance's copy;
 * the listing's copy is only compared with it, and a difference is logged and shown.
 *
 * Kept in global state (every window of this machine reads the same), keyed by instance and job,
 * the newest MAX_CHOICES. A job with no choice here (started on another machine, or before this
 * record existed) follows "wait", which spends nothing, until the user chooses with Change Outbid
 * Policy.
 */
import type { StoredAccess } from '../state/storedState';
import { isJobId } from './scripts';
import { parsePolicy, policyText, type OutbidPolicy, type PolicySource } from './resumable';
import type { JobStatus } from './status';
import type { Logger } from '../log';
import { visibleText } from '../text';

/** What the user chose for one job, as stored. */
export interface JobChoice {
  /** `wait`, `raise <ceiling>` or `move <ceiling>` (policyText); absent for a job that is not resumable. */
  readonly policy?: string;
  readonly stopAtEnd: boolean;
  /** Epoch ms it was chosen or last carried (a move): the oldest go first. */
  readonly at: number;
}

export type JobChoicesState = StoredAccess<{ jobChoices: Record<string, JobChoice> }>;

/** At most this many jobs' choices are kept, the newest. */
export const MAX_CHOICES = 500;

const key = (instanceId: number, jobId: string): string => `${instanceId}/${jobId}`;

/** Reads one stored choice; undefined for anything else. */
export function readJobChoice(raw: unknown): JobChoice | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const v = raw as Record<string, unknown>;
  const policy = typeof v['policy'] === 'string' && parsePolicy(v['policy']) ? v['policy'] : undefined;
  const at = typeof v['at'] === 'number' && Number.isFinite(v['at']) ? v['at'] : 0;
  return { ...(policy ? { policy } : {}), stopAtEnd: v['stopAtEnd'] === true, at };
}

/** The user's choices per instance and job (see the top of this file). */
export class JobChoices {
  private readonly told = new Set<string>();

  constructor(
    private readonly state: JobChoicesState,
    private readonly now: () => number = Date.now,
  ) {}

  get(instanceId: number, jobId: string): JobChoice | undefined {
    const raw = this.state.get('jobChoices')[key(instanceId, jobId)];
    return raw === undefined ? undefined : readJobChoice(raw);
  }

  /** The policy chosen here, read; undefined when none was. */
  policy(instanceId: number, jobId: string): OutbidPolicy | undefined {
    const text = this.get(instanceId, jobId)?.policy;
    return text === undefined ? undefined : parsePolicy(text);
  }

  /** Records what the user chose at a job's start. */
  async chose(instanceId: number, jobId: string, choice: { policy?: OutbidPolicy; stopAtEnd: boolean }): Promise<void> {
    if (!isJobId(jobId)) return;
    const value: JobChoice = {
      ...(choice.policy ? { policy: policyText(choice.policy) } : {}),
      stopAtEnd: choice.stopAtEnd,
      at: this.now(),
    };
    await this.put({ [key(instanceId, jobId)]: value });
  }

  /** Change Outbid Policy: the new policy, kept with the job's other choices. */
  async changePolicy(instanceId: number, jobId: string, policy: OutbidPolicy): Promise<void> {
    const current = this.get(instanceId, jobId);
    await this.put({ [key(instanceId, jobId)]: { stopAtEnd: current?.stopAtEnd ?? false, policy: policyText(policy), at: this.now() } });
  }

  /** A move: the job's choices go with it to the new instance. */
  async moved(fromId: number, toId: number, jobId: string): Promise<void> {
    const current = this.get(fromId, jobId);
    if (!current) return;
    await this.put({ [key(toId, jobId)]: { ...current, at: this.now() } });
  }

  private async put(entries: Record<string, JobChoice>): Promise<void> {
    await this.state.change('jobChoices', (all) => {
      const next = Object.entries({ ...all, ...entries });
      if (next.length <= MAX_CHOICES) return Object.fromEntries(next);
      return Object.fromEntries(next.sort((a, b) => (b[1].at ?? 0) - (a[1].at ?? 0)).slice(0, MAX_CHOICES));
    });
  }

  /**
   * A listing's status line with the user's choices in place of the instance's copies: the policy
   * (or "wait" when nothing was chosen here) and stop-at-end (when a choice is kept). A difference
   * is logged once per job and value.
   */
  reconcile(instanceId: number, s: JobStatus, logger: Pick<Logger, 'warn'>): JobStatus {
    const choice = this.get(instanceId, s.jobId);
    let out = s;
    if (choice && choice.stopAtEnd !== s.stopAtEnd) {
      if (this.first(`${instanceId}/${s.jobId}/stop/${s.stopAtEnd}`))
        logger.warn(
          `Job ${s.jobId} on #${instanceId}: the instance's copy says stop-at-end ${s.stopAtEnd ? 'on' : 'off'}; following what was chosen here (${choice.stopAtEnd ? 'on' : 'off'}).`,
        );
      out = { ...out, stopAtEnd: choice.stopAtEnd };
    }
    const r = s.resume;
    if (!r) return out;
    const reported = r.policyOnInstance ?? policyText(r.policy);
    const chosen = choice?.policy !== undefined ? parsePolicy(choice.policy) : undefined;
    const policy: OutbidPolicy = chosen ?? { kind: 'wait' };
    const onInstance = visibleText(reported, 60);
    const source: PolicySource = !chosen
      ? { kind: 'notHere', onInstance }
      : policyText(chosen) === reported
        ? { kind: 'here' }
        : { kind: 'differs', onInstance };
    if (source.kind !== 'here' && this.first(`${instanceId}/${s.jobId}/policy/${reported}`)) {
      if (source.kind === 'differs')
        logger.warn(
          `Job ${s.jobId} on #${instanceId}: the instance's copy of its outbid policy says "${onInstance}"; following what was chosen here ("${policyText(policy)}").`,
        );
      else
        logger.warn(
          `Job ${s.jobId} on #${instanceId}: no outbid policy was chosen for it on this machine (the instance's copy says "${onInstance}"); it follows "wait" until one is chosen with Change Outbid Policy.`,
        );
    }
    return { ...out, resume: { ...r, policy, policySource: source } };
  }

  /** Whether `id` is told for the first time in this window. */
  private first(id: string): boolean {
    if (this.told.has(id)) return false;
    this.told.add(id);
    return true;
  }
}

/** Choices kept in memory alone (tests and benches that hand the job book none); the extension keeps them in global state. */
export function memoryChoicesState(): JobChoicesState {
  let all: Record<string, JobChoice> = {};
  return {
    get: () => all,
    update: (_key, value) => Promise.resolve(void (all = value ?? {})),
    change: (_key, edit) => {
      const next = edit(all);
      all = next ?? {};
      return Promise.resolve(next);
    },
  };
}
