/**
 * The outbid policies of resumable jobs (core/jobs/outbidPolicy.ts) over the window's long-lived
 * objects: the session's client (read at each call, so a profile switched since is the one asked),
 * the poller, the Renter for the move's rent (outbidRent.ts) and the job book. ui hands in what
 * only it has: the spend cap's check, how ssh reaches an instance, the progress and the question.
 * It lives here, above jobs, because the move rents through the Renter.
 */
import { creditOf } from '../account/funds';
import type { Instance } from '../api/instances';
import type { InstancePoller } from '../instances/poller';
import type { JobBook } from '../jobs/book';
import { OutbidPolicies } from '../jobs/outbidPolicy';
import type { Logger } from '../log';
import type { Progress } from '../progress';
import type { Ask } from '../prompts';
import type { Session } from '../session/session';
import { runRemote, type SshTarget } from '../ssh/remote';
import { outbidRenter } from './outbidRent';
import type { Renter } from './renter';

export interface OutbidPolicyWiring {
  readonly session: Pick<Session, 'client' | 'bound' | 'refresh' | 'state'>;
  readonly poller: InstancePoller;
  readonly renter: Renter;
  /** The spend cap's check; false when it refuses (it has told the user why). */
  allowsSpend(perHour: number, reason: string): Promise<boolean>;
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly book: Pick<JobBook, 'resumableJobs' | 'resume'>;
  /** The move's cancellable progress (ui: a notification). */
  readonly progress: Progress;
  /** The question before Destroy New Instance (ui: a modal). */
  readonly ask: Pick<Ask, 'confirm'>;
  readonly logger: Logger;
}

export function outbidPolicies(w: OutbidPolicyWiring): OutbidPolicies {
  const client = () => w.session.client;
  const allowsSpend = (perHour: number, reason: string) => w.allowsSpend(perHour, reason);
  return new OutbidPolicies({
    jobs: { resumableJobs: (id) => w.book.resumableJobs(id), resume: (id, jobId, options) => w.book.resume(id, jobId, options) },
    instances: {
      show: (...a) => client().instances.show(...a),
      changeBid: (...a) => client().instances.changeBid(...a),
      stop: (...a) => client().instances.stop(...a),
      destroy: (...a) => client().instances.destroy(...a),
    },
    copy: {
      copyBetweenInstances: (...a) => client().copy.copyBetweenInstances(...a),
      cancelCopy: (...a) => client().copy.cancelCopy(...a),
    },
    poller: w.poller,
    rent: outbidRenter({
      renter: w.renter,
      account: () => w.session.bound(),
      search: (request) => client().offers.search(request),
      credit: async () => {
        await w.session.refresh();
        const state = w.session.state;
        return state.kind === 'ready' ? creditOf(state.user) : undefined;
      },
      allowsSpend,
      logger: w.logger,
    }),
    allowsSpend,
    sshTarget: w.sshTarget,
    run: (target, script, timeoutMs) => runRemote(target, script, { timeoutMs }),
    progress: w.progress,
    ask: w.ask,
    logger: w.logger,
  });
}
