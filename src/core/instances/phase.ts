import type { Instance } from '../api/instances';

/**
 * What an instance is doing, from the user's side. The service reports `actual_status` (null while
 * provisioning) and `intended_status`; together they say whether it is booting, running, stopping,
 * starting again, stopped, or failed for good.
 */
export type InstancePhase =
  | 'provisioning' // no status yet: the host is being prepared
  | 'loading' // pulling the image, starting the container
  | 'running'
  | 'stopping' // asked to stop, still running
  | 'starting' // stopped, asked to run again ("Scheduling" on the console)
  | 'rebooting'
  | 'stopped' // disk still billed
  | 'failed' // exited, offline or unknown: never recovers, disk still billed
  | 'gone' // destroyed
  | 'unreadable'; // the list sent a record GPU Rental could not read beyond its id: shown, destroyable, never guessed at

/** Statuses that never lead to running; the instance keeps billing for disk until destroyed. */
export const FAILED_STATUSES: ReadonlySet<string> = new Set(['exited', 'offline', 'unknown']);

/**
 * An interruptible instance bidding less than the machine's minimum now: it cannot run until its
 * bid wins again, so stopped with `intended_status: running` is an outbid, not a start
 * (core/instances/outbid.ts).
 */
export function bidBelowMinimum(instance: Partial<Pick<Instance, 'is_bid' | 'min_bid' | 'dph_base'>>): boolean {
  const { is_bid, min_bid, dph_base } = instance;
  return is_bid === true && typeof min_bid === 'number' && typeof dph_base === 'number' && min_bid > dph_base;
}

export function instancePhase(
  instance: Pick<Instance, 'actual_status' | 'intended_status' | 'unreadable'> & Partial<Pick<Instance, 'is_bid' | 'min_bid' | 'dph_base'>>,
): InstancePhase {
  if (instance.unreadable) return 'unreadable';
  const actual = instance.actual_status;
  const intended = instance.intended_status ?? undefined;
  if (actual === null || actual === 'created') return intended === 'stopped' ? 'stopped' : 'provisioning';
  if (FAILED_STATUSES.has(actual)) return 'failed';
  switch (actual) {
    case 'loading':
      return 'loading';
    case 'running':
      return intended === 'stopped' ? 'stopping' : 'running';
    case 'stopped':
    case 'frozen':
      return intended === 'running' && !bidBelowMinimum(instance) ? 'starting' : 'stopped';
    case 'rebooting':
    case 'recycling':
      return 'rebooting';
    case 'destroyed':
    case 'terminated':
      return 'gone';
    default:
      // A status this version does not know: show it as loading while it is meant to run.
      return intended === 'running' ? 'loading' : 'stopped';
  }
}

/** Phases that are on their way to running: the poller watches them closely. */
export function isBooting(phase: InstancePhase): boolean {
  return phase === 'provisioning' || phase === 'loading' || phase === 'starting' || phase === 'rebooting';
}

/** Phases that change without the user acting, so the list must be polled while any is present. */
export function isTransient(phase: InstancePhase): boolean {
  return isBooting(phase) || phase === 'stopping';
}
