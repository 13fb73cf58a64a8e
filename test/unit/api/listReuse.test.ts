import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { MockAgent, type Dispatcher } from 'undici';
import * as z from 'zod';
import { GpuRentalClient } from '../../../src/core/api/client';
import { isApiError } from '../../../src/core/api/errors';
import { recordsReader } from '../../../src/core/api/fields';
import {
  INSTANCE_CLOCK_FIELDS,
  InstanceListSchema,
  InstanceSchema,
  unreadableInstance,
  type Instance,
} from '../../../src/core/api/instanceSchemas';
import { ListReuse } from '../../../src/core/api/listReuse';
import { LIST_REUSE_MIN_RECORDS } from '../../../src/core/scale';
import { unreadableOf } from '../../../src/core/api/unreadable';
import { MemoryLogger } from '../../support';

const encode = (text: string) => new TextEncoder().encode(text);
const usual = (text: string) => z.object({ instances: InstanceListSchema }).parse(JSON.parse(text)).instances;

function chunked(bytes: Uint8Array, size = bytes.length || 1): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

/** A reader that counts the records it had to read in full; it reads in part from the first record on unless told otherwise. */
function reader(minRecords = 0) {
  const read = recordsReader(InstanceSchema, { byId: unreadableInstance });
  const r = {
    fresh: [] as number[],
    reuse: new ListReuse<Instance>({
      key: 'instances',
      readFresh: (values, places) => {
        r.fresh.push(...places);
        return read(values, places);
      },
      clockFields: INSTANCE_CLOCK_FIELDS,
      minRecords,
    }),
    /** Reads `text` as it would come in chunks of `size` bytes (in one chunk without). */
    read(text: string, size?: number): Instance[] | undefined {
      r.fresh = [];
      return r.reuse.read(chunked(encode(text), size))?.list;
    },
  };
  return r;
}

/** A record much as the service sends it, clock fields included. */
function record(id: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    actual_status: 'running',
    label: `train-${id}`,
    ssh_host: 'ssh4.example.net',
    ssh_port: 20_000 + id,
    gpu_util: 41.5,
    start_date: 1_795_702_000.212,
    duration: 4_319.846,
    uptime_mins: 71.9,
    client_run_time: 4_319.846,
    host_run_time: 4_319.846,
    ports: {
      '22/tcp': [
        { HostIp: '0.0.0.0', HostPort: String(20_000 + id) },
        { HostIp: '::', HostPort: String(20_000 + id) },
      ],
    },
    search: { totalHour: 0.5, duration: 12 },
    ...over,
  };
}

const answer = (records: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ instances_found: records.length, instances: records, ...extra });

describe('reading a repeated instance list in part (ListReuse)', () => {
  it('reads what the usual reading reads, then hands back the same record objects for unchanged records', () => {
    const r = reader();
    const records = [1, 2, 3, 4].map((id) => record(id));
    const first = r.read(answer(records))!;
    assert.deepEqual(first, usual(answer(records)));
    assert.deepEqual(r.fresh, [0, 1, 2, 3]);

    const again = r.read(answer(records))!;
    assert.deepEqual(r.fresh, [], 'nothing is read again');
    assert.ok(again.every((x, k) => x === first[k]));
  });

  it('takes a record whose only change is the service clock as unchanged, whatever the length of the new values', () => {
    const r = reader();
    const first = r.read(answer([record(1), record(2)]))!;
    const later = [
      record(1, { duration: 4_329.9, uptime_mins: null, client_run_time: 1e5, host_run_time: -0.5 }),
      record(2, { duration: 5 }),
    ];
    const again = r.read(answer(later))!;
    assert.deepEqual(r.fresh, []);
    assert.equal(again[0], first[0]);
    assert.equal(again[1], first[1]);
    assert.ok(!('duration' in first[0]!), 'the record does not keep the clock fields');
  });

  it('reads a record again when anything else changed: a field of the same length, a nested clock-named field, an added field', () => {
    const r = reader();
    const base = [record(1), record(2), record(3), record(4)];
    const first = r.read(answer(base))!;
    const changed = [
      record(1, { gpu_util: 42.5 }),
      record(2, { search: { totalHour: 0.5, duration: 13 } }),
      record(3, { status_msg: 'ok' }),
      record(4),
    ];
    const again = r.read(answer(changed))!;
    assert.deepEqual(r.fresh, [0, 1, 2]);
    assert.equal(again[0]!.gpu_util, 42.5);
    assert.equal(again[2]!.status_msg, 'ok');
    assert.equal(again[3], first[3]);
    assert.deepEqual(again, usual(answer(changed)));
  });

  it('follows records that moved, appeared and left', () => {
    const r = reader();
    const first = r.read(answer([1, 2, 3, 4, 5].map((id) => record(id))))!;
    const next = [record(9), record(3), record(1), record(5, { label: 'x' }), record(2)];
    const again = r.read(answer(next))!;
    assert.deepEqual(again, usual(answer(next)));
    assert.deepEqual(r.fresh, [0, 3]);
    assert.equal(again[1], first[2]);
    assert.equal(again[2], first[0]);
    assert.equal(again[4], first[1]);
  });

  it('forgets a record the answer no longer holds, and hands out a record twice listed as two objects', () => {
    const r = reader();
    r.read(answer([record(1), record(2)]));
    r.read(answer([record(1)]));
    r.read(answer([record(1), record(2)]));
    assert.deepEqual(r.fresh, [1], 'the record that left and came back is read again');
    const twice = r.read(answer([record(1), record(1), record(2)]))!;
    assert.deepEqual(r.fresh, [1]);
    assert.notEqual(twice[0], twice[1]);
    assert.deepEqual(twice[0], twice[1]);
  });

  it('finds the records where strings hold quotes, backslashes and brackets, and where the answer has blanks (Python separators)', () => {
    const r = reader();
    const odd = [record(1, { label: 'a "quoted" } { ] [ \\ label\\' }), record(2, { status_msg: '\\"}' }), record(3)];
    const spaced = JSON.stringify({ instances: odd }, null, 1).replace(/\n\s*/g, ' ');
    assert.deepEqual(r.read(spaced), usual(spaced));
    const again = r.read(spaced.replace('"duration": 4319.846', '"duration": 4400'))!;
    assert.deepEqual(r.fresh, []);
    assert.equal(again[0]!.label, 'a "quoted" } { ] [ \\ label\\');
  });

  it('reports an unreadable record on every read, at its place in the whole list', () => {
    const r = reader();
    const records = [record(1), record(2, { actual_status: 7 }), record(3)];
    for (let k = 0; k < 2; k++) {
      const list = r.read(answer(records))!;
      assert.equal(list[1]!.unreadable, true);
      assert.equal(unreadableOf(list)?.count, 1);
      assert.match(unreadableOf(list)!.reasons[0]!, /^\[1\]\.actual_status/);
    }
    assert.deepEqual(r.fresh, [1], 'only the unreadable record is read again');
  });

  it('leaves any answer it does not take for a plain list to the usual reading', () => {
    const r = reader();
    const good = answer([record(1), record(2)]);
    r.read(good);
    const odd = [
      '',
      'null',
      '[]',
      good.slice(0, -5),
      good.replace('},{', '}{'),
      good.replace(']}', ',]}'),
      '\ufeff' + good,
      answer([record(1), 5]),
      JSON.stringify({ instances: {} }),
      good.slice(0, -1) + ',"instances":[]}',
      good.slice(0, -1) + ',"instan\\u0063es":[]}',
      good.replace('"label":"train-2"', '"label":"train-2",,'),
      good + 'x',
    ];
    for (const size of [undefined, 1, 5, 97])
      for (const text of odd) assert.equal(r.read(text, size), undefined, `${size}: ${text.slice(0, 60)}`);
    assert.deepEqual(r.read(JSON.stringify({ instances: [] })), []);
    assert.deepEqual(r.read(JSON.stringify({ instances: [] }), 1), []);
  });

  it('reads the same whatever chunks the body comes in, records and characters cut across them included', () => {
    const records = [record(1, { label: 'é 日本 "q" \\ }' }), record(2), record(3, { gpu_util: 7 }), record(4)];
    const first = answer(records, { note: { nested: [1, '2', { x: null }] }, n: 123456789 });
    const later = answer(
      [record(4), record(1, { label: 'é 日本 "q" \\ }', duration: 9e9 }), record(2, { uptime_mins: 1 }), record(3, { gpu_util: 8 })],
      { note: { nested: [1, '2', { x: null }] }, n: 123456789 },
    );
    const whole = reader();
    const expected = [whole.read(first)!, whole.read(later)!];
    const freshLater = whole.fresh;
    assert.deepEqual(freshLater, [3]);
    for (const size of [1, 2, 3, 7, 64, 333, 1000, 2048, 4096]) {
      const r = reader();
      const a = r.read(first, size)!;
      assert.deepEqual(a, expected[0], `size ${size}`);
      const b = r.read(later, size)!;
      assert.deepEqual(b, expected[1], `size ${size}`);
      assert.deepEqual(r.fresh, freshLater, `size ${size}: only the changed record is read`);
      assert.equal(b[0], a[3], `size ${size}`);
      assert.equal(b[1], a[0], `size ${size}`);
    }
  });

  it('reads a number around the list whole when a window of the body ends inside it', () => {
    // Windows grow by 16 KiB: one of these paddings puts the window's end inside the number.
    for (let pad = 16_360; pad < 16_400; pad++) {
      const text = JSON.stringify({ pad: 'x'.repeat(pad), n: 123456789, instances: [record(1)] });
      assert.deepEqual(reader().read(text, 1), usual(text), `padding ${pad}`);
    }
  });

  it('reads a list shorter than LIST_REUSE_MIN_RECORDS whole each time, and one that long in part', () => {
    const below = Array.from({ length: LIST_REUSE_MIN_RECORDS - 1 }, (_, k) => record(k + 1));
    const places = below.map((_, k) => k);
    const short = reader(LIST_REUSE_MIN_RECORDS);
    const first = short.read(answer(below))!;
    for (const text of [answer(below), answer(below.map((x) => ({ ...x, duration: 1 }))), answer(below)]) {
      const again = short.read(text, 1000)!;
      assert.deepEqual(again, first);
      assert.deepEqual(short.fresh, places, 'every record is read again');
      assert.ok(
        again.every((x, k) => x !== first[k]),
        'no record is handed back',
      );
    }

    const at = [...below, record(LIST_REUSE_MIN_RECORDS)];
    const long = reader(LIST_REUSE_MIN_RECORDS);
    const whole = long.read(answer(at))!;
    const part = long.read(answer(at.map((x, k) => (k === 3 ? { ...x, label: 'moved' } : { ...x, duration: 2 }))), 1000)!;
    assert.deepEqual(long.fresh, [3], 'only the changed record is read');
    assert.ok(part.every((x, k) => k === 3 || x === whole[k]));
    assert.equal(part[3]!.label, 'moved');
  });

  it('starts reading in part when a short list grows to LIST_REUSE_MIN_RECORDS, and stops when it shrinks', () => {
    const r = reader(LIST_REUSE_MIN_RECORDS);
    const records = (n: number) => Array.from({ length: n }, (_, k) => record(k + 1));
    r.read(answer(records(2)));
    r.read(answer(records(LIST_REUSE_MIN_RECORDS)));
    assert.equal(r.fresh.length, LIST_REUSE_MIN_RECORDS, 'read whole: the last list was short');
    const grown = r.read(answer(records(LIST_REUSE_MIN_RECORDS)))!;
    assert.equal(r.fresh.length, LIST_REUSE_MIN_RECORDS, 'the first read in part knows no record yet');
    const again = r.read(answer(records(LIST_REUSE_MIN_RECORDS + 1)))!;
    assert.deepEqual(r.fresh, [LIST_REUSE_MIN_RECORDS]);
    assert.equal(again[0], grown[0]);
    r.read(answer(records(2)));
    r.read(answer(records(2)));
    assert.deepEqual(r.fresh, [0, 1], 'read whole again once the list is short');
  });

  it('keeps no clock field in the instance record, so none is ever read stale', () => {
    for (const field of INSTANCE_CLOCK_FIELDS) assert.ok(!(field in InstanceSchema.shape), field);
  });
});

describe('the instance list through the client, read in part', () => {
  const BASE = 'https://api.example.test';

  function serving(bodies: string[]) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(BASE);
    for (const body of bodies)
      pool
        .intercept({ path: /\/api\/v0\/instances\//, method: 'GET' })
        .reply(200, body, { headers: { 'content-type': 'application/json' } });
    return new GpuRentalClient({
      dispatcher: agent,
      baseUrl: BASE,
      getApiKey: () => 'sk-test-0123456789',
      logger: new MemoryLogger(),
      timeoutMs: 2_000,
      maxAttempts: 1,
    });
  }

  it('gives the same records poll after poll, and says the same errors as before for a refusal or a broken body', async () => {
    const good = answer(Array.from({ length: LIST_REUSE_MIN_RECORDS }, (_, k) => record(k + 1)));
    const client = serving([
      good,
      good.replace('"duration":4319.846', '"duration":4320'),
      JSON.stringify({ success: false, msg: 'key lacks instance_read', instances: [] }),
      good.slice(0, -3),
    ]);
    const first = await client.instances.listInOneRequest({ retry: 'never' });
    const second = await client.instances.listInOneRequest({ retry: 'never' });
    assert.equal(second[0], first[0]);
    assert.equal(second[1], first[1]);
    const refused = await client.instances.listInOneRequest({ retry: 'never' }).catch((e: unknown) => e);
    assert.ok(isApiError(refused) && refused.kind === 'bad_request' && /key lacks instance_read/.test(refused.message), String(refused));
    const broken = await client.instances.listInOneRequest({ retry: 'never' }).catch((e: unknown) => e);
    assert.ok(isApiError(broken) && broken.kind === 'invalid_response' && /not valid JSON/.test(broken.message), String(broken));
  });

  it('decodes a body that came byte by byte when the usual reading takes it, characters cut across chunks included', async () => {
    // Two "instances" keys: the quick reading declines, the usual one takes the last, as JSON.parse does.
    const body = answer([record(1)]).slice(0, -1) + `,"instances":[${JSON.stringify(record(2, { label: 'é 日本 🚀' }))}]}`;
    const bytes = encode(body);
    const dispatcher = {
      request: () =>
        Promise.resolve({
          statusCode: 200,
          headers: { 'content-type': 'application/json' },
          body: Readable.from(chunked(bytes, 1)),
        } as unknown as Dispatcher.ResponseData),
    };
    const client = new GpuRentalClient({
      dispatcher,
      baseUrl: BASE,
      getApiKey: () => 'sk-test-0123456789',
      logger: new MemoryLogger(),
      timeoutMs: 2_000,
      maxAttempts: 1,
    });
    const list = await client.instances.listInOneRequest({ retry: 'never' });
    assert.deepEqual(list, usual(body));
    assert.equal(list[0]!.label, 'é 日本 🚀');
  });
});
