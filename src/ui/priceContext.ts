/** The price-context source moved to core (src/core/offers/priceSource.ts); kept here for the modules that import it from ui. */
export { PRICE_CONTEXT_TTL_MS, PriceContextSource, statsWithin, type PriceContextSourceOptions } from '../core/offers/priceSource';
