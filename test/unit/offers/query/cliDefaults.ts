import type { OfferFilters } from '../../../../src/core/api/offerQuery';

/** What the CLI and SDK add unless told not to, in the CLI's order (the printer writes defaults in their order). */
export const DEFAULTS: OfferFilters = {
  verified: { eq: true },
  rentable: { eq: true },
  external: { eq: false },
  rented: { eq: false },
};
