import assert from 'node:assert/strict';
import { Agent, type Dispatcher } from 'undici';
import { isApiError } from '../../../src/core/api/errors';
import { templateSearchQuery } from '../../../src/core/api/templates';
import type { RequestDispatcher } from '../../../src/core/api/transport';
import { clientFor, DEMO_KEY, simulatorForSuite } from '../../support';

describe('template search: select_cols and order_by', () => {
  const sim = simulatorForSuite();

  /** The query of every request the client makes, decoded. */
  function recording(): { dispatcher: RequestDispatcher; queries: Array<Record<string, unknown>> } {
    const agent = new Agent();
    const queries: Array<Record<string, unknown>> = [];
    return {
      queries,
      dispatcher: {
        request(options: Dispatcher.RequestOptions) {
          const url = new URL(options.path, 'http://x');
          queries.push(Object.fromEntries([...url.searchParams].map(([k, v]) => [k, JSON.parse(v) as unknown])));
          return agent.request(options);
        },
      },
    };
  }

  it('always asks for every column, and sends order_by as a list of {col, dir}', async () => {
    const { dispatcher, queries } = recording();
    const { client } = clientFor(sim.url, DEMO_KEY, { dispatcher });
    await client.templates.search();
    await client.templates.search({ orderBy: { col: 'name', dir: 'desc' }, selectFilters: { use_ssh: { eq: true } } });
    await client.templates.search({
      orderBy: [
        { col: 'count_created', dir: 'desc' },
        { col: 'name', dir: 'asc' },
      ],
    });
    assert.deepEqual(queries, [
      { select_cols: ['*'] },
      { select_cols: ['*'], select_filters: { use_ssh: { eq: true } }, order_by: [{ col: 'name', dir: 'desc' }] },
      {
        select_cols: ['*'],
        order_by: [
          { col: 'count_created', dir: 'desc' },
          { col: 'name', dir: 'asc' },
        ],
      },
    ]);
  });

  it('the simulator sorts by it, and every field the schema reads comes back', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const asc = await client.templates.search({ orderBy: { col: 'name', dir: 'asc' } });
    const desc = await client.templates.search({ orderBy: { col: 'name', dir: 'desc' } });
    assert.ok(asc.length > 2, `${asc.length} templates`);
    const names = asc.map((t) => t.name);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    assert.deepEqual(
      desc.map((t) => t.name),
      [...names].reverse(),
    );
    for (const t of asc) assert.ok(t.hash_id && t.image && t.runtype, `template ${t.id} came back whole`);
  });

  it('refuses a column or direction that is not one before sending; the service refuses an unknown column', async () => {
    assert.throws(() => templateSearchQuery({ orderBy: { col: 'name; drop', dir: 'asc' } }), RangeError);
    assert.throws(() => templateSearchQuery({ orderBy: { col: 'name', dir: 'up' as 'asc' } }), RangeError);
    assert.deepEqual(templateSearchQuery({ orderBy: [] }), { select_cols: ['*'] });
    const { client } = clientFor(sim.url, DEMO_KEY);
    await assert.rejects(client.templates.search({ orderBy: { col: 'no_such_column', dir: 'asc' } }), (e: unknown) => {
      assert.ok(isApiError(e, 'bad_request'), String(e));
      assert.match(e.message, /no_such_column/);
      return true;
    });
  });
});
