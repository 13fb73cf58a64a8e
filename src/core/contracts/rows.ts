/**
 * What an instance's row says about its contract: a pending price increase (its short text in the
 * description, the numbers in the tooltip, the `priceIncrease` tag for Accept and Reject) and an
 * end within the notice window (`contractEnds`); the deposit of a reservation, read when the
 * tooltip is first shown.
 */
import type { DepositRecord } from '../api/contracts';
import type { RowExtra } from '../instances/present';
import { l10n } from '../l10n';
import { increaseRows, increaseShort } from './increase';
import { depositRows } from './reserve';
import type { ContractFacts } from './watch';

export function contractExtra(facts: ContractFacts | undefined): RowExtra | undefined {
  if (!facts) return undefined;
  const description: string[] = [];
  const tooltipRows: Array<[string, string]> = [];
  const tags: string[] = [];
  if (facts.increase) {
    description.push(increaseShort(facts.increase));
    tooltipRows.push(...increaseRows(facts.increase));
    tags.push('priceIncrease');
  }
  if (facts.endsInDays !== undefined) {
    const ends = endsText(facts.endsInDays);
    description.push(ends);
    tooltipRows.push([l10n.t('Contract'), ends]);
    tags.push('contractEnds');
  }
  return { key: `${facts.increase?.id ?? ''}|${facts.endsInDays ?? ''}`, description, tooltipRows, tags };
}

function endsText(days: number): string {
  if (days <= 0) return l10n.t('contract ended');
  if (days === 1) return l10n.t('contract ends within a day');
  return l10n.t('contract ends in {0} days', days);
}

/** A tooltip's Markdown with the deposit's rows after it; unchanged when nothing is deposited. */
export function tooltipWithDeposit(tooltip: string, deposit: DepositRecord | undefined): string {
  const rows = depositRows(deposit);
  if (rows.length === 0) return tooltip;
  return `${tooltip}\n\n${rows.map(([k, v]) => `**${k}:** ${v.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`)}`).join('  \n')}`;
}
