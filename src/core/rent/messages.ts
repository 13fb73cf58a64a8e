import type { PendingRent } from './journal';
import type { RentOutcome, Settlement } from './renter';
import { formatDollars } from '../format';

/**
 * What the user is told about a rent, for every outcome. The rule: an outcome GPU Rental did not
 * see is unknown, never "nothing happened"; "nothing is billed" is said only after the account was
 * read past the time the service could still have made the instance.
 */
export function rentOutcomeMessage(outcome: Exclude<RentOutcome, { kind: 'created' }>): string {
  switch (outcome.kind) {
    case 'busy':
      return 'a rent is already on its way in this window. Wait for it to finish; nothing else was sent.';
    case 'unsettled':
      return `not rented: ${outcome.pending.map(pendingName).join(', ')} is not confirmed yet, and renting again now could rent a second machine. GPU Rental is checking your account and will say what happened; rent again after that.`;
    case 'unavailable':
      return `the offer was taken or withdrawn meanwhile (the service said so). Nothing was rented and nothing is billed. Pick another offer.`;
    case 'refused':
      return `not rented: the service refused the request, so no instance was made and nothing is billed. ${outcome.error.message}`;
    case 'uncertain':
      return `the rent of ${pendingName(outcome.entry)} is not confirmed: ${uncertainReason(outcome.error)} The service may have made the instance (it would bill ${formatDollars(outcome.entry.perHour)}/h). GPU Rental is checking your account and will tell you; do not rent again until then.`;
  }
}

export function settlementMessage(s: Settlement, nowMs: number = Date.now()): string {
  switch (s.kind) {
    case 'found':
      return `the rent of ${pendingName(s.entry)} went through: it is instance #${s.instanceId} and bills ${formatDollars(s.entry.perHour)}/h. It is in the Instances view.`;
    case 'notCreated': {
      const seconds = Math.round((s.checkedAt - s.entry.sentAt) / 1000);
      const after = seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
      return `the rent of ${pendingName(s.entry)} did not go through: your account was checked ${after} after the request, later than the service could still have made it, and has no such instance. Nothing is billed for it; you can rent again.${nowMs - s.checkedAt > 60_000 ? ' (Checked when GPU Rental started again.)' : ''}`;
    }
    case 'unknowable':
      return `GPU Rental can no longer check whether the rent of ${pendingName(s.entry)} made an instance (the key it was sent with is gone). Look at your instances at ${s.entry.baseUrl} and destroy any you do not want.`;
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
      `${pendingName(e)}: ${inFlight(e) ? 'waiting for the answer' : e.state === 'sending' ? 'sent from a window that closed before the answer came' : `no readable answer (${e.problem ?? 'unknown'})`}`,
  );
  const text =
    checking.length === 0
      ? `Renting ${entries[0]!.description}…`
      : checking.length === 1
        ? `Rent of ${checking[0]!.description} not confirmed — checking`
        : `${checking.length} rents not confirmed — checking`;
  return {
    text,
    tooltip: `${checking.length ? `GPU Rental is checking your account for ${names}.` : `Renting ${names}.`} Until the outcome is known, no rent is repeated and the account's key, profile and service stay as they are.\n\n${reasons.join('\n')}`,
  };
}

function pendingName(e: PendingRent): string {
  return `"${e.label}" (${e.description})`;
}

function uncertainReason(error: unknown): string {
  if (!(error instanceof Error)) return 'the answer was lost.';
  const kind = (error as { kind?: string }).kind;
  switch (kind) {
    case 'timeout':
      return 'the service did not answer in time.';
    case 'network':
      return 'the connection broke before the answer arrived.';
    case 'server':
      return `the service (or a gateway in front of it) answered with an error (HTTP ${(error as { status?: number }).status ?? '5xx'}) that does not say whether the rent was done.`;
    case 'rate_limited':
      return 'the service answered "too many requests" (HTTP 429), which does not say whether the rent was done.';
    case 'invalid_response':
      return 'the service answered, but its answer could not be read.';
    default:
      return 'the answer was lost.';
  }
}
