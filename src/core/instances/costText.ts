import type { Instance } from '../api/instances';
import { formatDollars, formatDuration } from '../format';
import { l10n } from '../l10n';
import { instanceName } from './names';
import { instancePhase } from './phase';
import { uptimeSeconds } from './present';
import { currentRate } from './rates';

/** "RTX 4090 #123 bills $0.42/h while it runs; rented 2h 5m ago; $0.87 so far, from the account's charges." */
export function costText(instance: Instance, costSoFar: number | undefined, nowMs: number): string {
  const phase = instancePhase(instance);
  const rate = currentRate(instance, phase);
  const name = instanceName(instance);
  const parts = [
    rate === undefined
      ? l10n.t('{0} is {1}; the service did not say its hourly price', name, phase)
      : phase === 'running'
        ? l10n.t('{0} bills {1}/h while it runs', name, formatDollars(rate))
        : l10n.t('{0} bills {1}/h while {2} (its disk)', name, formatDollars(rate), phase),
  ];
  const uptime = uptimeSeconds(instance, nowMs);
  if (uptime !== undefined) parts.push(l10n.t('rented {0} ago', formatDuration(uptime)));
  parts.push(
    costSoFar === undefined
      ? l10n.t('what it cost so far is not known (the charges could not be read with this key)')
      : l10n.t("{0} so far, from the account's charges", formatDollars(costSoFar)),
  );
  return `${parts.join('; ')}.`;
}
