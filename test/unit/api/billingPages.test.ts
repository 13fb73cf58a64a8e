import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import { INVOICE_PAGE_MAX, clampPageSize } from '../../../src/core/api/billing';
import type { RequestDispatcher } from '../../../src/core/api/transport';
import { clientFor, DEMO_KEY, simulatorForSuite } from '../../support';

describe('invoices in pages of at most 100', () => {
  const sim = simulatorForSuite({ now: () => clock });
  let clock = Date.parse('2026-11-01T12:00:00Z');
  const TOP_UPS = 230;
  before(async () => {
    for (let i = 0; i < TOP_UPS; i++) {
      clock += 1_000;
      sim.control.addCredit(sim.accountId, 1);
    }
  });

  /** The query of every request, decoded. */
  function recording(): { dispatcher: RequestDispatcher; queries: URLSearchParams[] } {
    const agent = new Agent();
    const queries: URLSearchParams[] = [];
    return {
      queries,
      dispatcher: {
        request(options: Dispatcher.RequestOptions) {
          queries.push(new URL(options.path, 'http://x').searchParams);
          return agent.request(options);
        },
      },
    };
  }

  const range = () => ({ from: Math.floor(clock / 1000) - 86_400, to: Math.ceil(clock / 1000) });

  it('clamps the page size to 1..100, 100 when not given', () => {
    assert.equal(INVOICE_PAGE_MAX, 100);
    assert.equal(clampPageSize(undefined, 100), 100);
    assert.equal(clampPageSize(500, 100), 100);
    assert.equal(clampPageSize(40.7, 100), 40);
    assert.equal(clampPageSize(0, 100), 1);
    assert.equal(clampPageSize(Number.NaN, 100), 100);
  });

  it('asks for no more than 100 however many the caller wants, and follows next_token', async () => {
    const { dispatcher, queries } = recording();
    const { client } = clientFor(sim.url, DEMO_KEY, { dispatcher });
    const page = await client.billing.invoices({ ...range(), limit: 500 });
    assert.equal(page.results.length, 100);
    assert.equal(page.total, TOP_UPS + 1, 'the opening credit and every top-up');
    assert.ok(page.next_token);
    assert.equal(queries[0]!.get('limit'), '100');

    const all = await client.billing.allInvoices({ ...range(), limit: 500 });
    assert.equal(all.complete, true);
    assert.equal(all.results.length, TOP_UPS + 1);
    const ids = all.results.map((r) => (r.metadata as { invoice_id: number }).invoice_id);
    assert.equal(new Set(ids).size, ids.length, 'no invoice twice');
    const pages = queries.slice(1);
    assert.deepEqual(
      pages.map((p) => p.get('limit')),
      ['100', '100', '100'],
    );
    assert.deepEqual(
      pages.map((p) => p.has('after_token')),
      [false, true, true],
    );
  });

  it('stops at maxPages and says the list is incomplete', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const some = await client.billing.allInvoices({ ...range(), limit: 50 }, 2);
    assert.equal(some.results.length, 100);
    assert.equal(some.complete, false);
  });
});
