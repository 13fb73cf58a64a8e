/**
 * Offer search: `POST /api/v0/bundles/` with the query as body, `GET /api/v0/bundles/?q=<json>`
 * (older clients) and `PUT /api/v0/search/asks/` with `{q}`. No filters are added server-side:
 * the "verified, rentable, not rented" defaults belong to the clients.
 */
import { CATALOGUE_EPOCH, type Offer } from '../catalogue';
import { DEFAULT_ALLOCATED_STORAGE, priceOffer, type PricingType } from '../pricing';
import { QueryError, parseSearch, runSearch } from '../filters';
import { round } from '../random';
import { fail, isObject, jsonParam, ok, type Ctx, type RouteDef, type Sim } from '../router';

/** An offer as a search shows it now: priced, dated on the simulator's clock, rented or not. */
export function quote(sim: Sim, offer: Offer, allocatedStorage: number, type: PricingType, rented: Set<number>): Offer {
  const nowSec = sim.now() / 1000;
  const shift = nowSec - CATALOGUE_EPOCH;
  const priced = priceOffer(offer, { allocatedStorage, type });
  priced.start_date = round(offer.start_date + shift, 3);
  priced.end_date = round(offer.end_date + shift, 3);
  priced.duration = round(priced.end_date - nowSec, 3);
  if (rented.has(offer.id)) {
    priced.rentable = false;
    priced.rented = true;
  }
  return priced;
}

/** Whether an offer can be rented right now. */
export function isRentable(sim: Sim, offer: Offer): boolean {
  return offer.rentable && !sim.store.rentedOfferIds().has(offer.id);
}

function search(ctx: Ctx, query: unknown): ReturnType<typeof ok> {
  if (!isObject(query)) throw fail(400, 'invalid_request', `Invalid query: ${JSON.stringify(query)}, must be dict of conditions`);
  try {
    const parsed = parseSearch(query, ctx.sim.offerKinds);
    const rented = ctx.sim.store.rentedOfferIds();
    const storage = parsed.allocatedStorage ?? DEFAULT_ALLOCATED_STORAGE;
    const priced = ctx.sim.offers.map((o) => quote(ctx.sim, o, storage, parsed.type, rented));
    return ok({ offers: runSearch(priced, parsed) });
  } catch (error) {
    if (error instanceof QueryError) throw fail(400, 'invalid_args', error.message);
    throw error;
  }
}

export const offerRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/api/v0/bundles',
    category: 'misc',
    action: 'api.offers.search',
    handler: (ctx) => search(ctx, ctx.rawBody ?? {}),
  },
  {
    method: 'GET',
    path: '/api/v0/bundles',
    category: 'misc',
    action: 'api.offers.search',
    handler: (ctx) => {
      const q = jsonParam(ctx.query, 'q');
      if (typeof q === 'string') throw fail(400, 'invalid_request', 'q must be a JSON object.');
      return search(ctx, q ?? {});
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/search/asks',
    category: 'misc',
    action: 'api.offers.search',
    handler: (ctx) => search(ctx, ctx.body.q ?? {}),
  },
];
