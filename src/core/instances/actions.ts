import type { GpuRentalClient } from '../api/client';
import { ApiError } from '../api/errors';
import type { Instance } from '../api/instances';
import { instancePhase } from './phase';
import { currentRate } from './rates';
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';

/**
 * What became of a stop or destroy. `unknown`: neither the answer nor a second look says; the
 * user is told to check, never that nothing happened.
 */
export interface ActionResult {
  kind: 'done' | 'notDone' | 'unknown';
  message: string;
}

type Instances = Pick<GpuRentalClient['instances'], 'stop' | 'destroy' | 'show'>;

/**
 * Errors after which the request may have been carried out: a 5xx or 429 (a gateway may send it
 * after the service acted), a lost connection or timeout once the request was sent, or a 2xx whose
 * body could not be read. A clear refusal (auth, permission, bad request, not found) is not one.
 */
export function outcomeUnseen(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  switch (error.kind) {
    case 'server':
    case 'rate_limited':
    case 'invalid_response':
      return true;
    case 'network':
    case 'timeout':
      return error.outcomeUnknown;
    default:
      return false;
  }
}

/** Stops an instance and says what happened; after an unreadable answer, looks at the instance. */
export async function stopInstance(instances: Instances, instance: Instance, name: string): Promise<ActionResult> {
  const disk = instance.storage_total_cost
    ? l10n.t('Its disk still bills ({0}/h) until you destroy it.', formatDollars(instance.storage_total_cost))
    : l10n.t('Its disk still bills until you destroy it.');
  try {
    await instances.stop(instance.id);
    return { kind: 'done', message: sentences(l10n.t('stopping {0}.', name), disk) };
  } catch (error) {
    if (!outcomeUnseen(error)) throw error;
    const seen = await lookAgain(instances, instance.id);
    if (seen.kind === 'failed') return unknown('stop', name, error, seen.error, instance);
    if (seen.kind === 'gone') return { kind: 'done', message: l10n.t('{0} no longer exists; nothing bills for it.', name) };
    const phase = instancePhase(seen.instance);
    if (phase === 'stopped' || phase === 'stopping' || phase === 'failed') {
      return {
        kind: 'done',
        message: sentences(
          l10n.t('stopping {0}: the answer was not seen ({1}), but the instance shows as {2}.', name, short(error), phase),
          disk,
        ),
      };
    }
    const rate = currentRate(seen.instance);
    return {
      kind: 'notDone',
      message: rate
        ? l10n.t(
            '{0} was not stopped: the request failed ({1}), and the instance is still {2}, billing {3}/h. Try again.',
            name,
            short(error),
            phase,
            formatDollars(rate),
          )
        : l10n.t('{0} was not stopped: the request failed ({1}), and the instance is still {2}. Try again.', name, short(error), phase),
    };
  }
}

/**
 * Destroys an instance (destroying is idempotent, so the client repeats it on 502-504 and lost
 * connections; an instance already gone is success) and says what happened.
 */
export async function destroyInstance(instances: Instances, instance: Instance, name: string): Promise<ActionResult> {
  try {
    await instances.destroy(instance.id);
    return { kind: 'done', message: l10n.t('destroyed {0}.', name) };
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'not_found')
      return { kind: 'done', message: l10n.t('{0} is destroyed (it was already gone when GPU Rental asked).', name) };
    if (!outcomeUnseen(error)) throw error;
    const seen = await lookAgain(instances, instance.id);
    if (seen.kind === 'failed') return unknown('destroy', name, error, seen.error, instance);
    if (seen.kind === 'gone' || instancePhase(seen.instance) === 'gone') {
      return {
        kind: 'done',
        message: l10n.t('destroyed {0}: the answer was not seen ({1}), but the instance is gone.', name, short(error)),
      };
    }
    const rate = currentRate(seen.instance);
    return {
      kind: 'notDone',
      message: rate
        ? l10n.t(
            '{0} was not destroyed: the request failed ({1}), and the instance still exists, billing {2}/h. Try again.',
            name,
            short(error),
            formatDollars(rate),
          )
        : l10n.t('{0} was not destroyed: the request failed ({1}), and the instance still exists. Try again.', name, short(error)),
    };
  }
}

type Look = { kind: 'seen'; instance: Instance } | { kind: 'gone' } | { kind: 'failed'; error: unknown };

async function lookAgain(instances: Instances, id: number): Promise<Look> {
  try {
    return { kind: 'seen', instance: await instances.show(id) };
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'not_found') return { kind: 'gone' };
    return { kind: 'failed', error };
  }
}

function unknown(action: 'stop' | 'destroy', name: string, first: unknown, second: unknown, instance: Instance): ActionResult {
  const what =
    action === 'stop'
      ? l10n.t(
          'it is not known whether GPU Rental stopped {0}: the answer was not seen ({1}) and a second look failed too ({2}).',
          name,
          short(first),
          short(second),
        )
      : l10n.t(
          'it is not known whether GPU Rental destroyed {0}: the answer was not seen ({1}) and a second look failed too ({2}).',
          name,
          short(first),
          short(second),
        );
  const rate = currentRate(instance);
  return {
    kind: 'unknown',
    message: sentences(
      what,
      rate ? l10n.t('It may still bill, billing {0}/h.', formatDollars(rate)) : l10n.t('It may still bill.'),
      l10n.t('Refresh the Instances view to check before trying again.'),
    ),
  };
}

function short(error: unknown): string {
  if (error instanceof ApiError) {
    switch (error.kind) {
      case 'server':
        return `HTTP ${error.status ?? '5xx'}`;
      case 'rate_limited':
        return 'HTTP 429';
      case 'timeout':
        return l10n.t('no answer in time');
      case 'network':
        return l10n.t('the connection broke');
      case 'invalid_response':
        return l10n.t('an unreadable body');
      default:
        return error.kind;
    }
  }
  return error instanceof Error ? error.message : String(error);
}
