import type { Instance } from '../api/instances';
import { instancePhase, type InstancePhase } from './phase';
import { realTimers, type InstancePoller, type Timers } from './poller';

/** How a wait for an instance's phase ended. */
export type PhaseWait =
  /** The instance is in one of the wanted phases; `instance` is as the poll saw it. */
  | { outcome: 'reached'; instance: Instance; phase: InstancePhase }
  /** It reached a phase it will not leave for a wanted one by itself (stopped, failed, gone). */
  | { outcome: 'gaveUp'; instance: Instance | undefined; phase: InstancePhase }
  /** The signal aborted the wait; the instance goes on as it was. */
  | { outcome: 'cancelled' }
  /** `timeoutMs` passed first; `phase` is the last one seen, if any. */
  | { outcome: 'timedOut'; phase: InstancePhase | undefined };

export interface UntilPhaseOptions {
  /** Phases that end the wait as `gaveUp`: by default stopped, failed and gone (less any that are wanted). */
  giveUpOn?: readonly InstancePhase[];
  /** Aborting ends the wait as `cancelled`. */
  signal?: AbortSignal;
  /** Ends the wait as `timedOut` after this long; without it the wait lasts as long as it takes. */
  timeoutMs?: number;
  /** Told each phase a poll shows while the wait goes on (not the one that ends it), e.g. for a progress message. */
  onPhase?: (phase: InstancePhase) => void;
  /** The clock for `timeoutMs`; tests pass a fake one. */
  timers?: Pick<Timers, 'setTimeout' | 'clearTimeout'>;
}

const DEAD_ENDS: readonly InstancePhase[] = ['stopped', 'failed', 'gone'];

/**
 * Waits until the poller shows instance `id` in one of `phases`. It asks the poller to watch the
 * instance and to poll now, and judges only polls made from then on: the snapshot already there may
 * be older than what the caller just did (a start, a rent) and would say it is still stopped.
 * Never rejects; the result says how the wait ended.
 */
export function untilPhase(
  poller: Pick<InstancePoller, 'onDidUpdate' | 'refresh' | 'watch'>,
  id: number,
  phases: readonly InstancePhase[],
  options: UntilPhaseOptions = {},
): Promise<PhaseWait> {
  const { signal, timeoutMs, onPhase } = options;
  const giveUpOn = (options.giveUpOn ?? DEAD_ENDS).filter((p) => !phases.includes(p));
  const timers = options.timers ?? realTimers;
  if (signal?.aborted) return Promise.resolve({ outcome: 'cancelled' });
  return new Promise<PhaseWait>((resolve) => {
    let last: InstancePhase | undefined;
    let timer: unknown;
    const done = (result: PhaseWait) => {
      subscription.dispose();
      signal?.removeEventListener('abort', onAbort);
      if (timer !== undefined) timers.clearTimeout(timer);
      resolve(result);
    };
    const onAbort = () => done({ outcome: 'cancelled' });
    const subscription = poller.onDidUpdate((snapshot) => {
      const instance = snapshot.instances.find((i) => i.id === id);
      const phase = instance ? instancePhase(instance) : 'gone';
      last = phase;
      if (instance && phases.includes(phase)) return done({ outcome: 'reached', instance, phase });
      if (giveUpOn.includes(phase)) return done({ outcome: 'gaveUp', instance, phase });
      onPhase?.(phase);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) timer = timers.setTimeout(() => done({ outcome: 'timedOut', phase: last }), timeoutMs);
    poller.watch(id);
    void poller.refresh();
  });
}
