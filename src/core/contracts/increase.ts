/**
 * A host's price increase on a running contract, read for people: the old and new prices per
 * hour, when the new price starts (the contract's current end) and the end it would get. The
 * service lists prices per second; a null new value means that part of the price does not change
 * (service-notes §15.1). Every number shown comes from the service's row, never from the instance.
 */
import type { PendingIncreaseRecord } from '../api/contracts';
import { formatDollars } from '../format';
import { l10n } from '../l10n';

/** One pending increase, in $/h. */
export interface PriceIncrease {
  readonly id: number;
  readonly instanceId: number;
  /** GPU part, $/h; undefined when the service did not say. */
  readonly gpuOld?: number;
  readonly gpuNew?: number;
  /** Disk and RAM part, $/h. */
  readonly diskOld?: number;
  readonly diskNew?: number;
  /** Upload and download, $/GB, when they change. */
  readonly uploadNew?: number;
  readonly downloadNew?: number;
  /** Epoch seconds: when the new price starts (the contract's current end). */
  readonly startsAt?: number;
  /** Epoch seconds: the contract's end if accepted. */
  readonly newEnd?: number;
}

const perHour = (perSecond: number | null | undefined) =>
  typeof perSecond === 'number' && Number.isFinite(perSecond) ? perSecond * 3600 : undefined;
const plain = (n: number | null | undefined) => (typeof n === 'number' && Number.isFinite(n) ? n : undefined);

export function priceIncreaseOf(row: PendingIncreaseRecord): PriceIncrease {
  const gpuOld = perHour(row.old_gpu_costpersec);
  const diskOld = perHour(row.old_disk_ram_costpersec);
  return {
    id: row.pending_price_increase_id,
    instanceId: row.contract_id,
    gpuOld,
    // A null new value: that part keeps its price.
    gpuNew: perHour(row.new_gpu_costpersec) ?? gpuOld,
    diskOld,
    diskNew: perHour(row.new_disk_ram_costpersec) ?? diskOld,
    uploadNew: plain(row.new_bwu_cost) !== plain(row.old_bwu_cost) ? plain(row.new_bwu_cost) : undefined,
    downloadNew: plain(row.new_bwd_cost) !== plain(row.old_bwd_cost) ? plain(row.new_bwd_cost) : undefined,
    startsAt: plain(row.contract_end_date),
    newEnd: plain(row.ask_end_date),
  };
}

/** The whole price per hour before and after (GPU plus disk and RAM), when the service gave the parts. */
export function totals(inc: PriceIncrease): { old?: number; next?: number } {
  const sum = (a: number | undefined, b: number | undefined) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  return { old: sum(inc.gpuOld, inc.diskOld), next: sum(inc.gpuNew, inc.diskNew) };
}

/** A date as `2026-12-03 14:00 UTC`: the same for every user, whatever their time zone. */
export function utcDate(epochSeconds: number): string {
  return `${new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A date as `2026-12-03`, for a row's short text. */
export function utcDay(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10);
}

/** The row's short text: "price rises to $0.48/h from 2026-12-03". */
export function increaseShort(inc: PriceIncrease): string {
  const { next } = totals(inc);
  const from = inc.startsAt === undefined ? '' : ` ${l10n.t('from {0}', utcDay(inc.startsAt))}`;
  return next === undefined ? l10n.t('host asks a higher price{0}', from) : l10n.t('price rises to {0}/h{1}', formatDollars(next), from);
}

/** The tooltip's rows: what changes, when, and until when. */
export function increaseRows(inc: PriceIncrease): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const { old, next } = totals(inc);
  if (old !== undefined && next !== undefined) rows.push([l10n.t('Price increase'), `${formatDollars(old)}/h → ${formatDollars(next)}/h`]);
  else rows.push([l10n.t('Price increase'), l10n.t('the host asks a higher price')]);
  if (inc.gpuOld !== undefined && inc.gpuNew !== undefined && inc.gpuNew !== inc.gpuOld)
    rows.push([l10n.t('GPU part'), `${formatDollars(inc.gpuOld)}/h → ${formatDollars(inc.gpuNew)}/h`]);
  if (inc.diskOld !== undefined && inc.diskNew !== undefined && inc.diskNew !== inc.diskOld)
    rows.push([l10n.t('Disk and RAM'), `${formatDollars(inc.diskOld)}/h → ${formatDollars(inc.diskNew)}/h`]);
  if (inc.uploadNew !== undefined) rows.push([l10n.t('Upload'), l10n.t('{0} per GB', formatDollars(inc.uploadNew))]);
  if (inc.downloadNew !== undefined) rows.push([l10n.t('Download'), l10n.t('{0} per GB', formatDollars(inc.downloadNew))]);
  if (inc.startsAt !== undefined) rows.push([l10n.t('New price from'), l10n.t('{0} (the contract ends then)', utcDate(inc.startsAt))]);
  if (inc.newEnd !== undefined) rows.push([l10n.t('Contract end if accepted'), utcDate(inc.newEnd)]);
  return rows;
}

/** The facts of an increase in one paragraph: the notice's and the confirmations' detail. */
export function increaseDetail(inc: PriceIncrease): string {
  return increaseRows(inc)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}
