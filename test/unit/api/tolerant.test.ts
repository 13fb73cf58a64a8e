import assert from 'node:assert/strict';
import { MockAgent } from 'undici';
import { unreadableApiKey, unreadableSshKey } from '../../../src/core/api/account';
import { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { intFrom, numberFrom } from '../../../src/core/api/fields';
import { describeUnreadable, unreadableOf } from '../../../src/core/api/unreadable';
import { unreadableInstance, type Instance } from '../../../src/core/api/instances';
import { unreadableVolume } from '../../../src/core/api/volumes';
import { presentInstance } from '../../../src/core/instances/present';
import { generateOffers } from '../../marketplace/catalogue';
import { clientFor, DEMO_KEY, MemoryLogger, simulatorForSuite } from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'sk-test-tolerant-0123456789abcdef';
/** Put into odd records: it must never reach the log or a reason. */
const SENSITIVE = 'value-that-must-not-be-logged-7f3a';

/** A client whose every GET or POST to `path` answers `body` (as many times as asked). */
function answering(routes: Array<{ method?: 'GET' | 'POST'; path: RegExp; body: unknown; times?: number }>) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(BASE);
  for (const r of routes)
    pool
      .intercept({ path: r.path, method: r.method ?? 'GET' })
      .reply(200, JSON.stringify(r.body), { headers: { 'content-type': 'application/json' } })
      .times(r.times ?? 1);
  const logger = new MemoryLogger();
  const client = new GpuRentalClient({ dispatcher: agent, baseUrl: BASE, getApiKey: () => KEY, logger, timeoutMs: 2_000, maxAttempts: 1 });
  return { client, logger, agent };
}

const V0 = /^\/api\/v0\/instances\/\?owner=me$/;

function instance(id: number): Record<string, unknown> {
  return {
    id,
    actual_status: 'running',
    intended_status: 'running',
    label: `job-${id}`,
    ssh_host: 'ssh4.example.test',
    ssh_port: 20_000 + id,
    public_ipaddr: '203.0.113.7',
    ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: String(41_000 + id) }] },
    num_gpus: 1,
    gpu_name: 'RTX 4090',
    gpu_util: 42,
    dph_total: 0.35,
  };
}

async function listV0(records: unknown[]) {
  const { client, logger } = answering([{ path: V0, body: { instances: records } }]);
  return { list: await client.instances.listInOneRequest(), logger };
}

/** The same records, all well-formed: what every intact record must still read as. */
async function clean(ids: number[]): Promise<Instance[]> {
  const { list } = await listV0(ids.map(instance));
  assert.equal(unreadableOf(list), undefined);
  return list;
}

describe('tolerant lists: one odd field or record never hides the others', () => {
  describe('numbers sent as text', () => {
    it('reads plain numeric strings, and nothing else, as numbers', () => {
      assert.equal(numberFrom('22'), 22);
      assert.equal(numberFrom(' 0.45 '), 0.45);
      assert.equal(numberFrom('2e3'), 2000);
      assert.equal(numberFrom(7), 7);
      for (const odd of ['N/A', '', ' ', '0x10', 'Infinity', '1,5', '12px', null, true, {}, [], Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.equal(numberFrom(odd), undefined, `numberFrom(${JSON.stringify(odd)})`);
      }
      assert.equal(intFrom('2'), 2);
      assert.equal(intFrom('2.5'), undefined);
      assert.equal(intFrom(2.5), undefined);
    });
  });

  describe('instances', () => {
    const cases: Array<[string, Record<string, unknown>, keyof Instance, unknown]> = [
      ['ssh_port "22"', { ssh_port: '22' }, 'ssh_port', 22],
      ['ssh_port 70000', { ssh_port: 70_000 }, 'ssh_port', undefined],
      ['gpu_util "N/A"', { gpu_util: 'N/A' }, 'gpu_util', undefined],
      ['num_gpus "2"', { num_gpus: '2' }, 'num_gpus', 2],
      ['label 42', { label: 42 }, 'label', undefined],
      ['ports "x"', { ports: 'x' }, 'ports', undefined],
      ['dph_total "0.35"', { dph_total: '0.35' }, 'dph_total', 0.35],
      ['gpu_name {object}', { gpu_name: { secret: SENSITIVE } }, 'gpu_name', undefined],
    ];
    for (const [name, patch, field, expected] of cases) {
      it(`${name}: that field only is ${expected === undefined ? 'unknown' : `read as ${String(expected)}`}, every other record intact`, async () => {
        const intact = await clean([1, 2, 3]);
        const { list, logger } = await listV0([instance(1), { ...instance(2), ...patch }, instance(3)]);
        assert.deepEqual(
          list.map((i) => i.id),
          [1, 2, 3],
        );
        assert.deepEqual(list[0], intact[0]);
        assert.deepEqual(list[2], intact[2]);
        assert.equal(list[1]![field], expected);
        const { [field]: _odd, ...rest } = list[1]!;
        const { [field]: _was, ...restIntact } = intact[1]!;
        assert.deepEqual(rest, restIntact, 'the rest of the odd record is read as usual');
        assert.equal(unreadableOf(list), undefined, 'an odd optional field is not an unreadable record');
        assert.ok(!logger.lines.some((l) => l.startsWith('warn')));
      });
    }

    it('a port mapping with an odd port keeps the others', async () => {
      const { list } = await listV0([
        {
          ...instance(1),
          ports: {
            '22/tcp': [{ HostIp: '0.0.0.0', HostPort: 'x' }],
            '8080/tcp': [{ HostIp: '0.0.0.0', HostPort: 41_080 }],
            '9000/tcp': 'x',
          },
        },
      ]);
      assert.deepEqual(list[0]!.ports, {
        '22/tcp': [{ HostIp: '0.0.0.0', HostPort: undefined }],
        '8080/tcp': [{ HostIp: '0.0.0.0', HostPort: 41_080 }],
        '9000/tcp': null,
      });
    });

    for (const [name, odd, reason] of [
      ['a record that is null', null, '[1]: null instead of an object'],
      ['a record that is a string', SENSITIVE, '[1]: string instead of an object'],
      ['a record without id', { ...instance(2), id: undefined }, '[1].id: expected number, got nothing'],
      ['a record whose id is not a number', { ...instance(2), id: SENSITIVE }, '[1].id: expected number, got string'],
    ] as const) {
      it(`${name}: left out and counted, the others listed`, async () => {
        const intact = await clean([1, 3]);
        const { list, logger } = await listV0([instance(1), odd, instance(3)]);
        assert.deepEqual(list, intact);
        assert.deepEqual(unreadableOf(list), { count: 1, listedById: 0, dropped: 1, reasons: [reason] });
        const warnings = logger.lines.filter((l) => l.startsWith('warn'));
        assert.equal(warnings.length, 1);
        assert.match(warnings[0]!, /list instances: 1 record could not be read; 1 without a usable id left out \(\[1\]/);
        assert.ok(!logger.lines.some((l) => l.includes(SENSITIVE)), 'record contents are not logged');
      });
    }

    it('a record whose status cannot be read is listed by id only, and Destroy is offered for it', async () => {
      const { list, logger } = await listV0([instance(1), { ...instance(2), actual_status: { state: SENSITIVE } }, instance(3)]);
      assert.deepEqual(
        list.map((i) => i.id),
        [1, 2, 3],
      );
      assert.deepEqual(list[1], unreadableInstance(2));
      assert.equal(list[1]!.actual_status, null);
      assert.equal(list[1]!.unreadable, true);
      assert.equal(list[0]!.unreadable, undefined);
      assert.deepEqual(unreadableOf(list), {
        count: 1,
        listedById: 1,
        dropped: 0,
        reasons: ['[1].actual_status: expected string, got object'],
      });
      const p = presentInstance(list[1]!, { nowMs: Date.now() });
      assert.equal(p.label, '#2 (details unreadable)');
      assert.equal(p.contextValue, 'instance+unreadable+canDestroy');
      assert.ok(!logger.lines.some((l) => l.includes(SENSITIVE)));
    });

    it('an id sent as text is read as a number and the record is read whole', async () => {
      const intact = await clean([2]);
      const { list } = await listV0([{ ...instance(2), id: '2' }]);
      assert.deepEqual(list, intact);
    });

    it('the list stays a plain array: equal to one without the report, same JSON', async () => {
      const { list } = await listV0([instance(1), null]);
      assert.ok(unreadableOf(list));
      assert.deepEqual(Object.keys(list), ['0']);
      assert.equal(JSON.stringify(list), JSON.stringify(await clean([1])));
      assert.equal(unreadableOf([...list]), undefined, 'a copy does not carry it');
    });

    it('reports the first three reasons and counts the rest; the poller repeating the list logs the same report once', async () => {
      const records = [null, 'x', 7, [], { id: 'no' }, instance(9)];
      const { client, logger } = answering([{ path: V0, body: { instances: records }, times: 2 }]);
      const first = await client.instances.listInOneRequest();
      assert.deepEqual(
        first.map((i) => i.id),
        [9],
      );
      const report = unreadableOf(first)!;
      assert.equal(report.count, 5);
      assert.equal(report.dropped, 5);
      assert.deepEqual(report.reasons, [
        '[0]: null instead of an object',
        '[1]: string instead of an object',
        '[2]: number instead of an object',
      ]);
      assert.equal(describeUnreadable(report), '5 records could not be read; 5 without a usable id left out');
      await client.instances.listInOneRequest();
      assert.equal(logger.lines.filter((l) => l.startsWith('warn')).length, 1, 'one warning for the same report');
      assert.equal(logger.lines.filter((l) => l.startsWith('debug list instances')).length, 1, 'the repeat at debug level');
    });

    it('the paged list adds up what each page could not read', async () => {
      const { client } = answering([
        { path: /^\/api\/v1\/instances\/\?(?!.*after_token)/, body: { instances: [instance(1), null], next_token: 'p2' } },
        {
          path: /^\/api\/v1\/instances\/\?.*after_token=p2/,
          body: { instances: [{ ...instance(3), actual_status: 5 }, instance(4)], next_token: null },
        },
      ]);
      const list = await client.instances.list();
      assert.deepEqual(
        list.map((i) => i.id),
        [1, 3, 4],
      );
      assert.equal(list[1]!.unreadable, true);
      assert.deepEqual(unreadableOf(list), {
        count: 2,
        listedById: 1,
        dropped: 1,
        reasons: ['[1]: null instead of an object', '[0].actual_status: expected string, got number'],
      });
    });

    it('an answer that is not a list at all is still an invalid response', async () => {
      const { client } = answering([{ path: V0, body: { instances: 'x' } }]);
      await assert.rejects(client.instances.listInOneRequest(), (e) => isApiError(e, 'invalid_response'));
    });
  });

  describe('offers', () => {
    const search = async (records: unknown[]) => {
      const { client, logger } = answering([{ method: 'POST', path: /^\/api\/v0\/bundles\/$/, body: { offers: records } }]);
      const offers = await client.offers.search({ query: { filters: {}, order: [], type: 'on-demand' }, limit: 10 });
      return { offers, logger };
    };
    const wire = generateOffers(4, 1) as unknown as Array<Record<string, unknown>>;

    it('odd fields: prices and counts sent as text are read, "N/A" is unknown; records without GPU, price or id are left out and counted', async () => {
      const { offers: intact } = await search(wire);
      const { offers, logger } = await search([
        { ...wire[0], dph_total: String(wire[0]!.dph_total), num_gpus: String(wire[0]!.num_gpus) },
        { ...wire[1], cpu_ram: 'N/A', verified: 'yes' },
        { ...wire[2], gpu_name: undefined },
        { ...wire[3], id: undefined },
        null,
      ]);
      assert.deepEqual(
        offers.map((o) => o.id),
        [wire[0]!.id, wire[1]!.id],
      );
      assert.deepEqual(offers[0], intact[0]);
      assert.equal(offers[1]!.cpu_ram, undefined);
      assert.equal(offers[1]!.verified, undefined);
      assert.deepEqual({ ...offers[1], cpu_ram: intact[1]!.cpu_ram, verified: intact[1]!.verified }, intact[1]);
      assert.deepEqual(unreadableOf(offers), {
        count: 3,
        listedById: 0,
        dropped: 3,
        reasons: ['[2].gpu_name: expected string, got nothing', '[3].id: expected number, got nothing', '[4]: null instead of an object'],
      });
      assert.equal(logger.lines.filter((l) => l.startsWith('warn search offers: 3 records could not be read')).length, 1);
    });

    it('an answer without its offers list is still an invalid response', async () => {
      const { client } = answering([{ method: 'POST', path: /^\/api\/v0\/bundles\/$/, body: { nothing: [] } }]);
      await assert.rejects(client.offers.search({ query: { filters: {}, order: [], type: 'on-demand' } }), (e) =>
        isApiError(e, 'invalid_response'),
      );
    });
  });

  describe('volumes', () => {
    it('an odd size is unknown, an id sent as text is read; a record that is not an object is counted', async () => {
      const good = { id: 5, label: 'data', status: 'online', disk_space: 50, instances: [12], storage_total_cost: 0.01 };
      const { client, logger } = answering([
        { path: /^\/api\/v0\/volumes\//, body: { volumes: [good, { ...good, id: '6', disk_space: 'N/A', instances: 'x' }, SENSITIVE] } },
      ]);
      const volumes = await client.volumes.list();
      assert.deepEqual(volumes, [good, { ...good, id: 6, disk_space: undefined, instances: undefined }]);
      assert.deepEqual(unreadableOf(volumes), { count: 1, listedById: 0, dropped: 1, reasons: ['[2]: string instead of an object'] });
      assert.equal(logger.lines.filter((l) => l.startsWith('warn list volumes')).length, 1);
      assert.ok(!logger.lines.some((l) => l.includes(SENSITIVE)));
    });

    it('the stand-in for a volume read only by id carries nothing but its id', () => {
      assert.deepEqual(unreadableVolume(8), { id: 8, unreadable: true });
    });
  });

  describe('templates', () => {
    it('an odd disk size is unknown; a template without its hash or id is left out and counted', async () => {
      const t = (id: number) => ({
        id,
        hash_id: `h${id}abcdef`,
        name: `tmpl-${id}`,
        image: 'ubuntu',
        recommended_disk_space: 20,
        creator_id: 1,
      });
      const { client } = answering([
        {
          path: /^\/api\/v0\/template\//,
          body: {
            templates: [t(1), { ...t(2), recommended_disk_space: 'N/A', private: 'no' }, { ...t(3), hash_id: 3 }, { ...t(4), id: null }],
          },
        },
      ]);
      const templates = await client.templates.search();
      assert.deepEqual(
        templates.map((x) => x.id),
        [1, 2],
      );
      assert.deepEqual(templates[0], t(1));
      assert.deepEqual(templates[1], { ...t(2), recommended_disk_space: undefined, private: undefined });
      assert.deepEqual(unreadableOf(templates), {
        count: 2,
        listedById: 0,
        dropped: 2,
        reasons: ['[2].hash_id: expected string, got number', '[3].id: expected number, got null'],
      });
    });
  });

  describe('API keys and SSH keys', () => {
    it('API keys: an odd name is unknown; unreadable rights list the key by id ("rights unknown", never full access); no id: counted', async () => {
      const k = (id: number) => ({ id, name: `key-${id}`, rights: JSON.stringify({ api: { instance_read: {} } }) });
      const { client } = answering([
        {
          path: /^\/api\/v0\/auth\/apikeys\//,
          body: { apikeys: [k(1), { ...k(2), name: 42 }, { ...k(3), rights: `{${SENSITIVE}` }, { name: 'no id' }] },
        },
      ]);
      const keys = await client.apiKeys.list();
      assert.deepEqual(
        keys.map((x) => x.id),
        [1, 2, 3],
      );
      assert.deepEqual(keys[0]!.rights, { api: { instance_read: {} } });
      assert.equal(keys[1]!.name, undefined);
      assert.deepEqual(keys[1]!.rights, { api: { instance_read: {} } });
      assert.deepEqual(keys[2], unreadableApiKey(3));
      const report = unreadableOf(keys)!;
      assert.deepEqual({ ...report, reasons: report.reasons.length }, { count: 2, listedById: 1, dropped: 1, reasons: 2 });
      assert.match(report.reasons[0]!, /^\[2\]\.rights: .*, got string$/);
      assert.ok(!report.reasons.join(' ').includes(SENSITIVE));
    });

    it('SSH keys (bare list): a key without its text is listed by id, a string record is counted, an odd name is unknown', async () => {
      const s = (id: number) => ({ id, public_key: `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${id} me@laptop`, name: `k${id}` });
      const { client } = answering([{ path: /^\/api\/v0\/ssh\/$/, body: [s(1), { ...s(2), name: 42 }, { id: 3, public_key: 99 }, 'x'] }]);
      const keys = await client.sshKeys.list();
      assert.deepEqual(
        keys.map((x) => x.id),
        [1, 2, 3],
      );
      assert.equal(keys[0]!.public_key, s(1).public_key);
      assert.equal(keys[1]!.name, undefined);
      assert.equal(keys[1]!.public_key, s(2).public_key);
      assert.deepEqual(keys[2], unreadableSshKey(3));
      assert.deepEqual(unreadableOf(keys), {
        count: 2,
        listedById: 1,
        dropped: 1,
        reasons: ['[2].public_key: no public key, got number', '[3]: string instead of an object'],
      });
    });
  });

  describe("the simulator's corrupt control", () => {
    const market = simulatorForSuite();

    it('spoils one record of both instance lists, over HTTP, and the client still lists every instance', async () => {
      const { client } = clientFor(market.url, DEMO_KEY);
      const offers = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 3 });
      const ids: number[] = [];
      for (const offer of offers)
        ids.push((await client.instances.create(offer.id, { image: 'ubuntu', disk: 8, label: 'odd' })).instanceId);
      const corrupt = (body: unknown) =>
        fetch(`${market.url}/__control/corrupt`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal((await corrupt({ instance_id: ids[0], fields: { gpu_util: 'N/A', ssh_port: '22' } })).status, 200);
      assert.equal((await corrupt({ instance_id: ids[1], record: null })).status, 200);
      assert.equal((await corrupt({ instance_id: ids[2], fields: { actual_status: 5 } })).status, 200);
      assert.equal((await corrupt({ instance_id: ids[2] })).status, 400, 'fields or record is required');
      for (const list of [await client.instances.listInOneRequest(), await client.instances.list()]) {
        assert.deepEqual(
          list.map((i) => i.id),
          [ids[0], ids[2]],
        );
        assert.equal(list[0]!.gpu_util, undefined);
        assert.equal(list[0]!.ssh_port, 22);
        assert.equal(list[0]!.label, 'odd');
        assert.equal(list[1]!.unreadable, true);
        assert.deepEqual({ ...unreadableOf(list), reasons: undefined }, { count: 2, listedById: 1, dropped: 1, reasons: undefined });
      }
      assert.equal((await client.instances.show(ids[1]!)).label, 'odd', 'show by id is untouched');
      await client.instances.destroy(ids[2]!);
      assert.equal((await fetch(`${market.url}/__control/corrupt`, { method: 'DELETE' })).status, 200);
      const after = await client.instances.listInOneRequest();
      assert.deepEqual(
        after.map((i) => i.id),
        [ids[0], ids[1]],
      );
      assert.equal(unreadableOf(after), undefined);
    });
  });
});
