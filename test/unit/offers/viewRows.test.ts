import assert from 'node:assert/strict';
import type { Offer, SearchOffersRequest } from '../../../src/core/api/offers';
import { DEFAULT_SEARCH, OFFER_PAGE_SIZE } from '../../../src/core/offers/search';
import { filtersRow, offerSpoken, offersRows } from '../../../src/core/offers/viewRows';
import { priceableOffer } from '../../support';

/** A search over the offers the test gives; a request whose query holds `finds` answers them, any other nothing. Records the requests. */
function searchOver(offers: Offer[], finds?: (request: SearchOffersRequest) => boolean) {
  const requests: SearchOffersRequest[] = [];
  const search = (request: SearchOffersRequest) => {
    requests.push(request);
    return Promise.resolve(!finds || finds(request) ? offers : []);
  };
  return { search, requests };
}

describe('offers: the Offers view rows', () => {
  it('the header says the search, its sort and the disk it prices, and a click changes it', () => {
    const row = filtersRow({ ...DEFAULT_SEARCH, query: 'gpu_name=RTX_4090' });
    assert.equal(row.label, 'Filters');
    assert.match(row.description, /gpu_name=RTX_4090/);
    assert.equal(row.command?.command, 'gpuRental.searchOffers');
    assert.match(row.tooltip ?? '', /Each price includes \d+ GB of disk/);
  });

  it('offers "load more" only after a full page', async () => {
    const page = Array.from({ length: OFFER_PAGE_SIZE }, (_, i) => priceableOffer({ id: i + 1 }));
    const full = await offersRows(searchOver(page).search, DEFAULT_SEARCH);
    assert.deepEqual(
      full.after.map((r) => [r.kind, r.description]),
      [['more', `showing ${OFFER_PAGE_SIZE}`]],
    );
    const some = await offersRows(searchOver(page.slice(0, 3)).search, DEFAULT_SEARCH);
    assert.deepEqual(some.after, []);
    assert.equal(some.offers.length, 3);
  });

  it('nothing matches: tries the search without each filter and offers only those that find something', async () => {
    const query = 'gpu_name=RTX_4090 num_gpus=8';
    // Only the search without num_gpus finds offers.
    const { search, requests } = searchOver([priceableOffer()], (r) => r.limit === 1 && !('num_gpus' in r.query.filters));
    const { after } = await offersRows(search, { ...DEFAULT_SEARCH, query });
    assert.deepEqual(
      after.map((r) => [r.kind, r.id]),
      [
        ['empty', 'offers-empty'],
        ['relax', 'offers-relax-num_gpus'],
      ],
    );
    assert.equal(requests.length, 3, 'the search, then one probe per filter');
    assert.match(after[1]!.label, /^Remove num_gpus/);
  });

  it('nothing matches and no filter alone helps: offers to clear them all', async () => {
    const { after } = await offersRows(searchOver([], () => false).search, { ...DEFAULT_SEARCH, query: 'num_gpus=8' });
    assert.deepEqual(
      after.map((r) => r.id),
      ['offers-empty', 'offers-relax-all'],
    );
  });

  it('reads an offer aloud as words, a bid as "bids from"', () => {
    const offer = priceableOffer({ num_gpus: 2, gpu_ram: 24576, dph_total: 0.82, geolocation: 'Texas, US' });
    assert.equal(offerSpoken(offer, false), 'RTX 4090 times 2 offer, 82 cents per hour, 24 GB of VRAM each, in Texas, US');
    assert.match(offerSpoken(priceableOffer({ geolocation: null }), true), /^RTX 4090 offer, bids from .* per hour, 24 GB of VRAM$/);
  });
});
