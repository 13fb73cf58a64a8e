/**
 * Reserve (prepay) an on-demand instance: money deposited on it buys a discount that grows with
 * the months it covers (service-notes §15.2: about 20 % for one month and 30 % for three in the
 * CLI's help, up to 50 % in the docs; the service sets the rate and answers it). The money is
 * locked to that host. Every new deposit recalculates the discount over the remaining term, so a
 * small top-up late in a term can lower it: the confirmation warns when it would.
 */
import type { ContractsApi, DepositRecord } from '../api/contracts';
import { ApiError } from '../api/errors';
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { instanceName } from '../instances/names';
import { outcomeUnseen } from '../instances/actions';
import { instancePhase } from '../instances/phase';
import { isInterruptible } from '../instances/outbid';
import { l10n, sentences } from '../l10n';
import type { Notice } from '../notice';
import { boxProblem, boxValue, decimalText, type NumberBox } from '../numbers';
import type { Ask } from '../prompts';

/** Hours in a month as the service counts a reservation's term (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;
/** The largest deposit the box takes, in dollars. */
export const MAX_PREPAY = 1_000_000;

export interface ReserveDeps {
  ask: Pick<Ask, 'input' | 'confirm'>;
  contracts: Pick<ContractsApi, 'prepay' | 'deposit'>;
  /** The account's credit now, when known. */
  credit(): Promise<number | undefined>;
}

/** Months a deposit covers at an on-demand rate. */
export function monthsCovered(dollars: number, perHour: number): number {
  return perHour > 0 ? dollars / (perHour * HOURS_PER_MONTH) : 0;
}

/**
 * The discount the service's own help text names for a term (an estimate: the service decides).
 * Undefined under a month, where nothing is documented.
 */
export function documentedDiscount(months: number): number | undefined {
  if (months >= 3) return 0.3;
  if (months >= 1) return 0.2;
  return undefined;
}

const percent = (fraction: number) => `${Math.round(fraction * 1000) / 10} %`;
const monthsText = (months: number) => (Math.round(months * 10) / 10).toString();

/** A term in words: "1.1 months", under a month "12 days", under a day "20 hours". */
export function termText(months: number): string {
  if (months >= 0.95) {
    const m = monthsText(months);
    return m === '1' ? l10n.t('1 month') : l10n.t('{0} months', m);
  }
  const hours = months * HOURS_PER_MONTH;
  const days = Math.round(hours / 24);
  if (hours >= 23.5) return days === 1 ? l10n.t('1 day') : l10n.t('{0} days', days);
  const h = Math.max(1, Math.round(hours));
  return h === 1 ? l10n.t('1 hour') : l10n.t('{0} hours', h);
}

/** The tooltip's rows for what is deposited on an instance; none when nothing is. */
export function depositRows(deposit: DepositRecord | undefined): Array<[string, string]> {
  const amount = deposit?.refundable_deposit ?? 0;
  if (!deposit || !(amount > 0)) return [];
  const rows: Array<[string, string]> = [[l10n.t('Reserved'), l10n.t('{0} deposited (locked to this host)', formatDollars(amount))]];
  if (typeof deposit.discount_months === 'number' && deposit.discount_months > 0)
    rows.push([l10n.t('Reservation term'), termText(deposit.discount_months)]);
  if (typeof deposit.total_discount === 'number' && deposit.total_discount > 0)
    rows.push([l10n.t('Discount so far'), formatDollars(deposit.total_discount)]);
  return rows;
}

/** The amount box: dollars above 0. */
function amountBox(credit: number | undefined): NumberBox {
  const max = credit !== undefined && credit > 0 ? Math.min(MAX_PREPAY, Math.floor(credit * 100) / 100) : MAX_PREPAY;
  return {
    min: 0,
    minExclusive: true,
    max,
    dollars: true,
    hint: l10n.t('Enter an amount in dollars, such as 250.'),
    tooHigh:
      credit !== undefined
        ? l10n.t('Your credit is {0}: add credit first, or prepay less.', formatDollars(credit))
        : l10n.t('Enter at most {0}.', formatDollars(MAX_PREPAY)),
  };
}

/** Asks the amount, confirms months, discount and the lock to the host, and prepays. Undefined when cancelled. */
export async function reserveFlow(deps: ReserveDeps, instance: Instance): Promise<Notice | undefined> {
  const name = instanceName(instance);
  const rate = instance.dph_total ?? undefined;
  if (isInterruptible(instance))
    return { severity: 'info', text: l10n.t('GPU Rental: {0} is interruptible; only an on-demand instance can be reserved.', name) };
  if (instancePhase(instance) !== 'running')
    return { severity: 'info', text: l10n.t('GPU Rental: {0} is not running; reserve it while it runs on demand.', name) };
  if (rate === undefined || !(rate > 0))
    return {
      severity: 'warning',
      text: l10n.t('GPU Rental: the service did not say what {0} costs per hour, so a reservation cannot be worked out.', name),
    };
  const [before, credit] = await Promise.all([deps.contracts.deposit(instance.id).catch(() => undefined), deps.credit()]);
  const box = amountBox(credit);
  const month = Math.ceil(rate * HOURS_PER_MONTH);
  const answer = await deps.ask.input({
    title: l10n.t('GPU Rental: Reserve {0}', name),
    prompt: l10n.t(
      'Dollars to prepay at the on-demand {0}/h: one month is about {1}, three about {2}. The money is locked to this host.',
      formatDollars(rate),
      formatDollars(month),
      formatDollars(month * 3),
    ),
    value: decimalText(Math.min(month, box.max)),
    validate: (text) => boxProblem(text, box),
  });
  if (answer === undefined) return undefined;
  const amount = boxValue(answer, box);
  const held = before?.refundable_deposit ?? 0;
  const months = monthsCovered(held + amount, rate);
  const discount = documentedDiscount(months);
  const lowers = held > 0 && typeof before?.discount_months === 'number' && months < before.discount_months;
  const detail = sentences(
    held > 0
      ? l10n.t(
          'With the {0} already deposited, {1} covers about {2} from now at {3}/h.',
          formatDollars(held),
          formatDollars(held + amount),
          termText(months),
          formatDollars(rate),
        )
      : l10n.t('{0} covers about {1} at {2}/h.', formatDollars(amount), termText(months), formatDollars(rate)),
    discount === undefined
      ? l10n.t('Under a month the discount is small; the service sets it.')
      : l10n.t('Discount: about {0} (the service sets it: about 20 % for one month, 30 % for three).', percent(discount)),
    lowers &&
      l10n.t(
        'Warning: a new deposit recalculates the discount over what remains. Now the term is {0}; after this it would be about {1}, which can lower the discount.',
        termText(before!.discount_months!),
        termText(months),
      ),
    l10n.t(
      'The money is locked to this host: it cannot move to another machine, and only what is left after paying back the discount so far can be withdrawn.',
    ),
  );
  if (
    !(await deps.ask.confirm(
      l10n.t('Prepay {0} on {1}?', formatDollars(amount), name),
      detail,
      l10n.t('Prepay {0}', formatDollars(amount)),
    ))
  )
    return undefined;
  try {
    const done = await deps.contracts.prepay(instance.id, amount);
    return {
      severity: 'info',
      text: sentences(
        l10n.t('GPU Rental: {0} prepaid on {1}.', formatDollars(amount), name),
        typeof done.timescale === 'number' ? l10n.t('It covers {0}.', termText(done.timescale)) : undefined,
        typeof done.discount_rate === 'number' ? l10n.t('Discount: {0}.', percent(done.discount_rate)) : undefined,
      ),
    };
  } catch (error) {
    if (!outcomeUnseen(error)) return { severity: 'error', text: refusal(error, name, amount) };
    return { severity: 'warning', text: await unseen(deps, instance.id, name, amount, held, error) };
  }
}

/** What a refused prepay says: the service's words, and what to do. */
function refusal(error: unknown, name: string, amount: number): string {
  if (error instanceof ApiError && error.status === 411)
    return l10n.t(
      'GPU Rental: the service refused to prepay {0} on {1}: not enough credit. Add credit, or prepay less.',
      formatDollars(amount),
      name,
    );
  const why = error instanceof Error ? error.message : String(error);
  return l10n.t('GPU Rental: the service refused to prepay {0} on {1}: {2}', formatDollars(amount), name, why);
}

/** No answer was seen: the deposit says whether the money went in. Never sent again by itself. */
async function unseen(deps: ReserveDeps, id: number, name: string, amount: number, held: number, error: unknown): Promise<string> {
  const short = error instanceof Error ? error.message : String(error);
  const after = await deps.contracts.deposit(id).catch(() => undefined);
  const now = after?.refundable_deposit;
  if (typeof now === 'number' && now >= held + amount - 0.005)
    return l10n.t(
      'GPU Rental: the answer was lost ({0}), but the deposit on {1} is now {2}: the prepay went through.',
      short,
      name,
      formatDollars(now),
    );
  if (typeof now === 'number')
    return l10n.t(
      'GPU Rental: the answer was lost ({0}). The deposit on {1} reads {2}, so the prepay does not show yet. Check the deposit in a minute (hover the instance) before you prepay again.',
      short,
      name,
      formatDollars(now),
    );
  return l10n.t(
    'GPU Rental: it is not known whether {0} was prepaid on {1}: the answer was lost ({2}) and the deposit could not be read. Check the deposit (hover the instance) before you prepay again.',
    formatDollars(amount),
    name,
    short,
  );
}
