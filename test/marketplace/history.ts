/**
 * Billing history for a fresh account (`billingHistoryDays`): what a renter of some months leaves
 * in the ledger, so that charges and invoices have several months and pages to read. Over the
 * days before "now" it records a few dozen instances that ran and were destroyed (labels from a
 * small pool, some repeated, some none; some from a template; some interruptible), each with its
 * disk billed from create to destroy and its GPU billed while it ran (one run, or two with a
 * stop between), a few volumes that were deleted, and credit top-ups on the first of each month.
 *
 * Everything ends before now, so nothing bills any more; rates are the catalogue's (`rentalRates`),
 * so a charge reads as one of its offers would bill. It follows from the seed and the clock alone:
 * one seed and one "now" give the same ledger. Top-ups are whole multiples of $5 that keep the
 * balance from going below zero at any time, and the opening credit at now makes the balance
 * exactly the `credit` asked for (when that is at least what the top-ups left over; else the
 * leftover, under $5).
 */
import type { Offer } from './catalogue';
import { usage } from './ledger';
import type { Contract, Ms, Segment } from './model';
import { rentalRates } from './pricing';
import { hash32, Random, round } from './random';
import type { Store } from './state';

const MINUTE: Ms = 60_000;
const HOUR: Ms = 60 * MINUTE;
const DAY: Ms = 24 * HOUR;

/** Labels a renter gives, often more than once; null: none. */
const LABELS: readonly (string | null)[] = [
  'llama-8b-finetune',
  'llama-8b-finetune',
  'sdxl-lora',
  'eval-sweep',
  'eval-sweep',
  'whisper-batch',
  'vllm-serve',
  'notebook',
  null,
  null,
  null,
];

/** Top-ups are whole multiples of this ($). */
const TOP_UP_STEP = 5;

/** One past instance or volume, before it has an id. */
interface Past {
  type: Contract['type'];
  start: Ms;
  end: Ms;
  label: string | null;
  templateId: number | null;
  segments: Segment[];
}

/** Whole seconds, so that charges (in seconds) read the same instants. */
const sec = (ms: Ms): Ms => Math.round(ms / 1000) * 1000;

/** Most rents are of one or two modest GPUs; some of a big machine. */
function pickOffer(rng: Random, offers: readonly Offer[]): Offer {
  const modest = offers.filter((o) => o.dph_base < 3);
  return rng.pick(modest.length > 0 && rng.chance(0.85) ? modest : offers);
}

function pastInstance(rng: Random, offers: readonly Offer[], templateIds: readonly number[], from: Ms, to: Ms): Past {
  const offer = pickOffer(rng, offers);
  const bid = rng.chance(0.25) ? round(offer.min_bid * rng.float(1, 1.3), 6) : undefined;
  const { gpuRate, diskRate } = rentalRates(offer, { diskGb: rng.pick([10, 16, 32, 50, 100, 200]), bid });
  const runHours = () => rng.weighted([rng.float(0.3, 3), rng.float(3, 24), rng.float(24, 96)], [4, 4, 2]);
  const boot = rng.float(1, 4) * MINUTE;
  const runs = [runHours() * HOUR];
  const gap = rng.chance(0.35) ? rng.float(1, 48) * HOUR : 0;
  if (gap > 0) runs.push(runHours() * HOUR);
  const tail = rng.float(0, 30) * MINUTE;
  const wanted = boot + runs.reduce((a, b) => a + b, 0) + gap + tail;
  // A long plan in a short history is squeezed to fit.
  const room = Math.max(HOUR, to - from - HOUR);
  const scale = Math.min(1, room / wanted);
  const start = sec(from + rng.next() * (room - wanted * scale));
  const segments: Segment[] = [];
  let at = start + sec(boot * scale);
  for (const [i, run] of runs.entries()) {
    if (i > 0) at += sec(gap * scale);
    const end = at + Math.max(60_000, sec(run * scale));
    segments.push({ kind: 'gpu', rate: gpuRate, start: at, end });
    at = end;
  }
  const end = at + sec(tail * scale);
  segments.unshift({ kind: 'disk', rate: diskRate, start, end });
  const label = rng.pick(LABELS);
  const templateId = templateIds.length > 0 && rng.chance(0.4) ? rng.pick(templateIds) : null;
  return { type: 'instance', start, end, label, templateId, segments };
}

function pastVolume(rng: Random, offers: readonly Offer[], from: Ms, to: Ms, n: number): Past {
  const offer = pickOffer(rng, offers);
  const { diskRate } = rentalRates(offer, { diskGb: rng.pick([50, 100, 200, 500]), bid: undefined });
  const length = Math.min(to - from - 2 * HOUR, rng.float(3, 40) * DAY);
  const start = sec(from + rng.next() * (to - from - HOUR - length));
  const end = start + sec(length);
  return { type: 'volume', start, end, label: `datasets-${n}`, templateId: null, segments: [{ kind: 'disk', rate: diskRate, start, end }] };
}

/** First of each calendar month (UTC) after `from` and before `to`, at a morning hour. */
function monthStarts(rng: Random, from: Ms, to: Ms): Ms[] {
  const out: Ms[] = [];
  const d = new Date(from);
  for (let y = d.getUTCFullYear(), m = d.getUTCMonth() + 1; ; m++) {
    const at = sec(Date.UTC(y, m, 1, 8) + rng.float(0, 3) * HOUR);
    if (at >= to) break;
    if (at > from) out.push(at);
  }
  return out;
}

/**
 * Records `days` of history for a fresh account before `now`, then its opening credit at `now`, so
 * that its balance is `credit` (see the top of the file).
 */
export function seedBillingHistory(
  store: Store,
  o: { accountId: number; offers: readonly Offer[]; days: number; credit: number; now: Ms },
): void {
  const account = store.account(o.accountId);
  if (!account || !(o.days > 0) || o.offers.length === 0) return;
  const rng = new Random(hash32(`billing-history:${store.data.seed}`));
  const now = sec(o.now);
  const from = now - Math.round(o.days * DAY);
  const templateIds = store.data.templates.map((t) => t.id);
  const pasts: Past[] = [];
  const instances = Math.max(1, Math.round(o.days * 0.3));
  for (let i = 0; i < instances; i++) pasts.push(pastInstance(rng, o.offers, templateIds, from, now));
  const volumes = Math.round(o.days / 40);
  for (let i = 0; i < volumes && now - from > 4 * HOUR; i++) pasts.push(pastVolume(rng, o.offers, from, now, i + 1));
  // Contract ids grow with time, as the service hands them out.
  pasts.sort((a, b) => a.start - b.start);
  const contracts: Contract[] = pasts.map((p) => ({ id: store.nextId('contract'), accountId: o.accountId, ...p }));
  store.data.contracts.push(...contracts);

  // The account opened at the history's start; it tops up at the start and on the first of each month.
  const opened = from - sec(rng.float(1, 5) * HOUR);
  account.createdAt = opened;
  const times = [opened, ...monthStarts(rng, from, now)];
  let left = 0;
  for (const [i, at] of times.entries()) {
    const until = times[i + 1] ?? now;
    const spend = contracts.reduce((sum, c) => sum + usage(c, 'gpu', at, until).amount + usage(c, 'disk', at, until).amount, 0);
    const need = spend - left;
    const amount = need > 0 ? Math.ceil(need / TOP_UP_STEP) * TOP_UP_STEP : 0;
    if (amount > 0) store.addCredit(o.accountId, amount, at, 'Credit purchase');
    left += amount - spend;
  }
  const opening = o.credit - left;
  if (opening > 0) store.addCredit(o.accountId, opening, o.now, 'Opening credit');
  store.changed();
}
