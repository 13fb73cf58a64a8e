/**
 * Offers listed after the simulator started (`POST /__control/offers`): a machine built as the
 * seeded catalogue builds one, with the fields a test names put over it and every field that
 * follows from them (VRAM, DLPerf and TFLOPS of the GPU model, totals for the GPU count, the base
 * price under a total, the location code) made consistent again. Listings live in memory only,
 * like the catalogue itself: a restarted simulator has the catalogue alone.
 */
import { generateOffers, type Offer } from './catalogue';
import { GPUS, geocode } from './hardware';
import { DEFAULT_ALLOCATED_STORAGE, priceOffer, storagePerHour } from './pricing';
import { round } from './random';
import { fail, type Sim } from './router';

/** Fields a listing may not set: who it is (ids) and what is worked out from the rest. */
const DERIVED = new Set([
  'id',
  'ask_contract_id',
  'bundle_id',
  'gpu_total_ram',
  'gpu_ids',
  'storage_total_cost',
  'vram_costperhour',
  'discounted_dph_total',
  'discounted_hourly',
  'dlperf_per_dphtotal',
  'flops_per_dphtotal',
  'score',
  'geolocode',
  'search',
  'instance',
  'is_bid',
]);

/**
 * Lists a new rentable, verified offer and answers it as a search pricing `allocatedStorage` GB
 * shows it. `fields` override the generated machine's (same names and units as a search answer);
 * `dph_total` is the total a search pricing `allocatedStorage` GB lists, and the base price is
 * set under it. Throws a 400 for an unknown field, a value of the wrong type, an unknown GPU model
 * or a total below the disk's price.
 */
export function addListing(sim: Sim, fields: Record<string, unknown>, allocatedStorage = DEFAULT_ALLOCATED_STORAGE): Offer {
  const seed = sim.store.data.seed + 7919 * (sim.offers.length + 1);
  const base = generateOffers(1, seed)[0]!;
  const id = Math.max(0, ...sim.offers.map((o) => o.id)) + 1;
  const machine = Math.max(0, ...sim.offers.map((o) => o.machine_id)) + 1;
  const host = Math.max(0, ...sim.offers.map((o) => o.host_id)) + 1;
  const offer: Offer = {
    ...base,
    id,
    ask_contract_id: id,
    bundle_id: id,
    machine_id: machine,
    host_id: host,
    hostname: `host${host}`,
    verification: 'verified',
    vericode: 1,
    verified: true,
    rentable: true,
    rented: false,
    external: false,
  };
  const record = offer as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(fields)) {
    if (!Object.hasOwn(record, field) || DERIVED.has(field)) throw fail(400, 'invalid_args', `A listing cannot set ${field}.`);
    const kind = record[field] === null ? typeof value : typeof record[field];
    if (typeof value !== kind || (typeof value === 'number' && !Number.isFinite(value))) {
      throw fail(400, 'invalid_args', `${field} must be a ${kind}.`);
    }
    record[field] = value;
  }
  const model = GPUS.find((g) => g.name === offer.gpu_name);
  if (!model) throw fail(400, 'invalid_args', `Unknown GPU model ${offer.gpu_name}; use one of ${GPUS.map((g) => g.name).join(', ')}.`);
  if (!Number.isInteger(offer.num_gpus) || offer.num_gpus < 1 || offer.num_gpus > 16) {
    throw fail(400, 'invalid_args', 'num_gpus must be a whole number from 1 to 16.');
  }
  if (fields.gpu_name !== undefined || fields.num_gpus !== undefined) {
    // The generated machine had another GPU: take the model's figures, as the catalogue does.
    const n = offer.num_gpus;
    if (fields.gpu_ram === undefined) offer.gpu_ram = model.ramMb;
    if (fields.dlperf === undefined) offer.dlperf = round(model.dlperf * n, 4);
    if (fields.total_flops === undefined) offer.total_flops = round(model.tflops * n, 4);
    if (fields.compute_cap === undefined) offer.compute_cap = model.cc;
    if (fields.dph_base === undefined && fields.dph_total === undefined) offer.dph_base = round(model.price * n, 6);
  }
  offer.gpu_total_ram = offer.gpu_ram * offer.num_gpus;
  offer.gpu_ids = Array.from({ length: offer.num_gpus }, (_, k) => k);
  if (typeof fields.dph_total === 'number') {
    const disk = storagePerHour(offer.storage_cost, allocatedStorage);
    if (fields.dph_total <= disk) throw fail(400, 'invalid_args', `dph_total must be above the disk's ${disk} $/h.`);
    offer.dph_base = round(fields.dph_total - disk, 6);
  }
  if (fields.min_bid === undefined) offer.min_bid = round(offer.dph_base * 0.45, 6);
  if (!/[A-Z]{2}$/.test(offer.geolocation)) throw fail(400, 'invalid_args', 'geolocation must end with a country code, e.g. "Texas, US".');
  offer.geolocode = geocode(offer.geolocation);
  const listed = priceOffer(offer, { allocatedStorage: DEFAULT_ALLOCATED_STORAGE, type: 'on-demand' });
  sim.offers.push(listed);
  sim.offerById.set(listed.id, listed);
  return priceOffer(listed, { allocatedStorage, type: 'on-demand' });
}

/**
 * Another renter takes the offer (the `offer_taken` fault): it stops being rentable and searches
 * show it rented, in memory only, as listings are. An unknown id does nothing.
 */
export function takeOffer(sim: Sim, offerId: number): void {
  const offer = sim.offerById.get(offerId);
  if (!offer) return;
  offer.rentable = false;
  offer.rented = true;
}
