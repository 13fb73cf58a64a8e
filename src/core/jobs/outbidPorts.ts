/**
 * What the outbid policies (outbidPolicy.ts) and the move (outbidMove.ts) share: the ports they are
 * written against, what they are handed, and what they end with.
 */
import type { GpuRentalClient } from '../api/client';
import type { CopyApi } from '../api/copy';
import type { Instance } from '../api/instances';
import type { followTransfer } from '../instances/copyProgress';
import type { InstancePoller } from '../instances/poller';
import type { untilPhase } from '../instances/untilPhase';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import type { RemoteResult, SshTarget } from '../ssh/remote';
import { visibleText } from '../text';
import { gpuSummary } from '../instances/names';
import type { ResumableJob } from './resumable';

/** The buttons of an outbid policy's notice; `outbidActionLabel` words them. */
export type OutbidAction = 'raiseBid' | 'moveToOnDemand' | 'retryCopy' | 'destroyNew';

export function outbidActionLabel(action: OutbidAction): string {
  switch (action) {
    case 'raiseBid':
      return l10n.t('Raise Bid');
    case 'moveToOnDemand':
      return l10n.t('Move to On-Demand');
    case 'retryCopy':
      return l10n.t('Retry Copy');
    case 'destroyNew':
      return l10n.t('Destroy New Instance');
  }
}

/** The job book's side (core/jobs/book.ts), as the lead wires it. */
export interface ResumableJobsPort {
  /** The instance's resumable jobs as its last listing showed them (kept while it is stopped). */
  resumableJobs(instanceId: number): readonly ResumableJob[];
  /**
   * Runs the job's resume script over ssh on `instanceId` (the job moved there from `movedFrom`,
   * from its checkpoint entry `checkpoint` when given); rejects when it could not.
   */
  resume(instanceId: number, jobId: string, options: { movedFrom: number; checkpoint?: string }): Promise<unknown>;
}

/** What renting "the same search elsewhere" came to. */
export type MoveRent =
  /** The new instance was created (through the Renter and its journal). */
  | { kind: 'rented'; instanceId: number; description: string; perHour: number; bid?: number }
  /** No offer like the old instance fits the ceiling now: nothing was sent. */
  | { kind: 'nothingFits' }
  /** Nothing was rented, for the reason `reason` gives (a refusal, every offer taken, an unsettled rent, the credit). */
  | { kind: 'notRented'; reason: string }
  /** The create's answer was not seen: the Renter settles it and says what happened. */
  | { kind: 'uncertain'; reason: string }
  /** The spend cap check refused, and has told the user why. */
  | { kind: 'capped' }
  /** Cancelled between two attempts (never during a create). */
  | { kind: 'cancelled' };

/** Rents an instance like `old` on another machine, at most `ceiling` $/h for the GPU (core/rent/outbidRent.ts). */
export interface MoveRentPort {
  rentLike(old: Instance, ceiling: number, o: { report(message: string): void; signal: AbortSignal }): Promise<MoveRent>;
}

export interface OutbidPolicyDeps {
  readonly jobs: ResumableJobsPort;
  readonly instances: Pick<GpuRentalClient['instances'], 'show' | 'changeBid' | 'stop' | 'destroy'>;
  readonly copy: Pick<CopyApi, 'copyBetweenInstances' | 'cancelCopy'>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate' | 'refresh' | 'watch' | 'setInterest'>;
  readonly rent: MoveRentPort;
  /** The spend cap check; false when it refuses (it has told the user why). */
  allowsSpend(perHour: number, reason: string): Promise<boolean>;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  sshTarget(instance: Instance): Promise<SshTarget>;
  /** Runs a short script on the instance (runRemote). */
  run(target: SshTarget, script: string, timeoutMs: number): Promise<RemoteResult>;
  /** Resolves once the instance's sshd answers; rejects with why not. Default: the banner probe on its SSH address. */
  waitForSsh?(instance: Instance, signal: AbortSignal): Promise<void>;
  /** The move's cancellable progress (ui: a notification); its Cancel works between steps, never during a create. */
  readonly progress: Progress;
  readonly ask: Pick<Ask, 'confirm'>;
  readonly logger: Logger;
  /** How long the new instance may take to run (default 15 min). */
  readonly bootTimeoutMs?: number;
  /** Tests hand fakes of the waits. */
  readonly follow?: typeof followTransfer;
  readonly untilPhase?: typeof untilPhase;
}

/** What acting on an outbid came to. */
export type OutbidOutcome =
  /** A move of this instance is already on its way: nothing more is said. */
  | { readonly kind: 'inFlight' }
  /**
   * What to tell. `move`: the move's state, for Retry Copy and Destroy New Instance. `boots`: an
   * instance that starts again (a raised bid), for the status bar to follow.
   */
  | { readonly kind: 'acted'; readonly notice: Notice<OutbidAction>; readonly move?: MoveState; readonly boots?: number };

/** A move under way or stopped part-way: what Retry Copy and Destroy New Instance go on from. */
export interface MoveState {
  /** The outbid instance, as it was when the move began (stopped). */
  readonly old: Instance;
  readonly jobs: readonly ResumableJob[];
  readonly ceiling: number;
  /** Its jobs' policies differ (the first job's applies). */
  readonly differ: boolean;
  /** The instance rented to take over, once there is one. */
  readonly fresh?: { readonly id: number; readonly description: string; readonly perHour: number };
}

/** How a sentence names the jobs: `"train"`, or `"train", "eval"`. */
export function jobNames(jobs: readonly Pick<ResumableJob, 'label' | 'jobId'>[]): string {
  return jobs.map((j) => `"${visibleText(j.label || j.jobId, 80)}"`).join(', ');
}

/** The instance as the notices name it: `"train" (RTX 4090)`, or `RTX 4090 #42`. */
export function shortName(instance: Instance): string {
  return instance.label ? `"${visibleText(instance.label, 80)}" (${gpuSummary(instance)})` : `${gpuSummary(instance)} #${instance.id}`;
}

/** An error's words for a message: the service's message, or the error's. */
export function errorText(error: unknown): string {
  return visibleText(error instanceof Error ? error.message : String(error), 300);
}
