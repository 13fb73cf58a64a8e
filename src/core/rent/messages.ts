import type { PendingRent } from './journal';
import type { RentOutcome, Settlement } from './renter';
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';

/**
 * What the user is told about a rent, for every outcome. The rule: an outcome GPU Rental did not
 * see is unknown, never "nothing happened"; "nothing is billed" is said only after the account was
 * read past the time the service could still have made the instance.
 */
export function rentOutcomeMessage(outcome: Exclude<RentOutcome, { kind: 'created' }>): string {
  switch (outcome.kind) {
    case 'busy':
      return l10n.t('a rent is already on its way in this window. Wait for it to finish; nothing else was sent.');
    case 'unsettled':
      return l10n.t(
        'not rented: {0} is not confirmed yet, and renting again now could rent a second machine. GPU Rental is checking your account and will say what happened; rent again after that.',
        outcome.pending.map(pendingName).join(', '),
      );
    case 'unavailable':
      return l10n.t(
        'the offer was taken or withdrawn meanwhile (the service said so). Nothing was rented and nothing is billed. Pick another offer.',
      );
    case 'refused':
      return refusedMessage(outcome);
    case 'uncertain':
      return l10n.t(
        'the rent of {0} is not confirmed: {1} The service may have made the instance (it would bill {2}/h). GPU Rental is checking your account and will tell you; do not rent again until then.',
        pendingName(outcome.entry),
        uncertainReason(outcome.error),
        formatDollars(outcome.entry.perHour),
      );
  }
}

/**
 * A refusal says what the service refused: a missing template or volume by name (another offer
 * would not help), an unclear "not found" as just that, anything else with the service's words.
 */
function refusedMessage(outcome: Extract<RentOutcome, { kind: 'refused' }>): string {
  const error = outcome.error;
  const said = error.serverMessage ? l10n.t('The service said: "{0}".', quoted(error.serverMessage)) : undefined;
  const missing = outcome.missing;
  if (missing?.kind === 'template')
    return sentences(
      l10n.t(
        'not rented: the template {0} does not exist, or this account may not use it, so no instance was made and nothing is billed.',
        missing.hash,
      ),
      said,
      l10n.t('Pick another template, or rent with an image instead.'),
    );
  if (missing?.kind === 'volume')
    return missing.newVolume
      ? sentences(
          l10n.t(
            'not rented: the storage offer {0} for the new volume is not available any more, so no instance was made and nothing is billed.',
            missing.volumeId,
          ),
          said,
          l10n.t('Rent again and choose another new volume or an existing one.'),
        )
      : sentences(
          l10n.t(
            'not rented: the volume {0} does not exist in this account, so no instance was made and nothing is billed.',
            missing.volumeId,
          ),
          said,
          l10n.t('Pick another volume, or create one, and rent again.'),
        );
  if (error.kind === 'not_found')
    return sentences(
      l10n.t(
        'not rented: the service answered "not found" (HTTP {0}) without saying whether the offer, the template or the volume is missing, so no instance was made and nothing is billed.',
        error.status ?? 404,
      ),
      said,
      l10n.t('Check them and try again.'),
    );
  return l10n.t('not rented: the service refused the request, so no instance was made and nothing is billed. {0}', error.message);
}

/** At most this much of the service's words goes into a sentence; the log has all of it. */
const QUOTED_CHARS = 300;

function quoted(text: string): string {
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS - 1)}…` : text;
}

export function settlementMessage(s: Settlement, nowMs: number = Date.now()): string {
  switch (s.kind) {
    case 'found':
      return l10n.t(
        'the rent of {0} went through: it is instance #{1} and bills {2}/h. It is in the Instances view.',
        pendingName(s.entry),
        s.instanceId,
        formatDollars(s.entry.perHour),
      );
    case 'notCreated': {
      const seconds = Math.round((s.checkedAt - s.entry.sentAt) / 1000);
      const after = seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
      return sentences(
        l10n.t(
          'the rent of {0} did not go through: your account was checked {1} after the request, later than the service could still have made it, and has no such instance. Nothing is billed for it; you can rent again.',
          pendingName(s.entry),
          after,
        ),
        nowMs - s.checkedAt > 60_000 && l10n.t('(Checked when GPU Rental started again.)'),
      );
    }
    case 'unknowable':
      return l10n.t(
        'GPU Rental can no longer check whether the rent of {0} made an instance (the key it was sent with is gone). Look at your instances at {1} and destroy any you do not want.',
        pendingName(s.entry),
        s.entry.baseUrl,
      );
  }
}

/**
 * The status bar's words while a rent is unsettled. `inFlight` tells this window's own rent whose
 * answer is still awaited (plain "Renting…") from one whose outcome must be checked.
 */
export function pendingStatus(
  entries: readonly PendingRent[],
  inFlight: (e: PendingRent) => boolean = () => false,
): { text: string; tooltip: string } | undefined {
  if (entries.length === 0) return undefined;
  const checking = entries.filter((e) => !inFlight(e));
  const names = entries.map(pendingName).join(', ');
  const reasons = entries.map(
    (e) =>
      `${pendingName(e)}: ${inFlight(e) ? l10n.t('waiting for the answer') : e.state === 'sending' ? l10n.t('sent from a window that closed before the answer came') : l10n.t('no readable answer ({0})', e.problem ?? l10n.t('unknown'))}`,
  );
  const text =
    checking.length === 0
      ? l10n.t('Renting {0}…', entries[0]!.description)
      : checking.length === 1
        ? l10n.t('Rent of {0} not confirmed — checking', checking[0]!.description)
        : l10n.t('{0} rents not confirmed — checking', checking.length);
  return {
    text,
    tooltip: l10n.t(
      "{0} Until the outcome is known, no rent is repeated and the account's key, profile and service stay as they are.\n\n{1}",
      checking.length ? l10n.t('GPU Rental is checking your account for {0}.', names) : l10n.t('Renting {0}.', names),
      reasons.join('\n'),
    ),
  };
}

function pendingName(e: PendingRent): string {
  return `"${e.label}" (${e.description})`;
}

function uncertainReason(error: unknown): string {
  if (!(error instanceof Error)) return l10n.t('the answer was lost.');
  const kind = (error as { kind?: string }).kind;
  switch (kind) {
    case 'timeout':
      return l10n.t('the service did not answer in time.');
    case 'network':
      return l10n.t('the connection broke before the answer arrived.');
    case 'server':
      return l10n.t(
        'the service (or a gateway in front of it) answered with an error (HTTP {0}) that does not say whether the rent was done.',
        (error as { status?: number }).status ?? '5xx',
      );
    case 'rate_limited':
      return l10n.t('the service answered "too many requests" (HTTP 429), which does not say whether the rent was done.');
    case 'invalid_response':
      return l10n.t('the service answered, but its answer could not be read.');
    default:
      return l10n.t('the answer was lost.');
  }
}
