import assert from 'node:assert/strict';
import { call, q, simulatorForSuite } from '../../support';

type Row = Record<string, unknown>;

describe('marketplace: template search columns and order', () => {
  const sim = simulatorForSuite();

  const search = async (query: string) => {
    const res = await call(sim, 'GET', `/api/v0/template/?${query}`);
    return { status: res.status, body: res.json as Row };
  };

  it('select_cols ["*"] (or none) gives whole templates; a list gives those columns, an unknown one as null', async () => {
    const all = (await search(`select_cols=${q(['*'])}`)).body.templates as Row[];
    const plain = (await search('')).body.templates as Row[];
    assert.deepEqual(all, plain);
    assert.ok('hash_id' in all[0]! && 'image' in all[0]! && !('docker_login_pass' in all[0]!));
    const some = (await search(`select_cols=${q(['id', 'name', 'nope'])}`)).body.templates as Row[];
    assert.equal(some.length, all.length);
    assert.deepEqual(Object.keys(some[0]!), ['id', 'name', 'nope']);
    assert.equal(some[0]!.nope, null);
    assert.equal((await search(`select_cols=${q('id')}`)).status, 400);
  });

  it('order_by: a list of {col, dir}, or one column name; id breaks ties; an unknown column is a 400', async () => {
    const byCount = (await search(`order_by=${q([{ col: 'count_created', dir: 'desc' }])}`)).body.templates as Row[];
    for (let i = 1; i < byCount.length; i++) {
      const [a, b] = [byCount[i - 1]!, byCount[i]!];
      assert.ok(
        (a.count_created as number) > (b.count_created as number) ||
          (a.count_created === b.count_created && (a.id as number) < (b.id as number)),
        `row ${i}`,
      );
    }
    const byName = (await search('order_by=name')).body.templates as Row[];
    const names = byName.map((t) => String(t.name));
    assert.deepEqual(
      names,
      [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    const bad = await search(`order_by=${q([{ col: 'secret_sauce', dir: 'asc' }])}`);
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.msg), /secret_sauce/);
  });
});
