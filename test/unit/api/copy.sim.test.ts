import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { InstancePoller } from '../../../src/core/instances/poller';
import { followTransfer, type TransferEnd } from '../../../src/core/instances/copyProgress';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { sshdAvailable } from '../../marketplace/sshd';
import {
  clientFor,
  DEMO_KEY,
  failure,
  MemoryLogger,
  mockedApi,
  reachableInstance,
  rentableOffers,
  simulatorForSuite,
  tempDirForSuite,
} from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'sk-copy-0123456789abcdef0123456789';

/** The client against scripted answers; `answer` replies with `data` and keeps the JSON body in `sent`. */
function mocked() {
  const api = mockedApi(BASE, KEY);
  const sent: unknown[] = [];
  const answer = (method: string, path: string, data: object) =>
    api.pool.intercept({ path, method }).reply((req) => {
      sent.push(JSON.parse(String(req.body)));
      return { statusCode: 200, data };
    });
  return { ...api, sent, answer };
}

describe('copy and cloud sync client (scripted answers)', () => {
  it('copy between instances: PUT copy_direct with the documented fields, ids as strings', async () => {
    const m = mocked();
    m.answer('PUT', '/api/v0/commands/copy_direct/', {
      success: true,
      msg: 'Remote to Remote copy initiated - check instance status bar for progress updates.',
    });
    const res = await m.client.copy.copyBetweenInstances({ srcId: 11, dstId: 12, srcPath: '/workspace/data/', dstPath: '/workspace/' });
    assert.match(res.message ?? '', /copy initiated/);
    assert.deepEqual(m.sent, [{ client_id: 'me', src_id: '11', dst_id: '12', src_path: '/workspace/data/', dst_path: '/workspace/' }]);
  });

  it('a copy whose answer is a 500: a server error whose outcome is unknown, sent once', async () => {
    const m = mockedApi(BASE, KEY, { maxAttempts: 4, retryBaseMs: 1 });
    let calls = 0;
    m.pool
      .intercept({ path: '/api/v0/commands/copy_direct/', method: 'PUT' })
      .reply(() => {
        calls++;
        return { statusCode: 500, data: 'oops' };
      })
      .persist();
    const e = await failure(m.client.copy.copyBetweenInstances({ srcId: 1, dstId: 2, srcPath: '/a/', dstPath: '/b/' }));
    assert.equal(e.kind, 'server');
    assert.equal(e.outcomeUnknown, true, 'the copy may be running: check the destination');
    assert.equal(calls, 1, 'a copy that may have started is never sent again');
  });

  it('a copy answered with a body that is not JSON: unknown outcome, not a failure that did nothing', async () => {
    const m = mocked();
    m.pool.intercept({ path: '/api/v0/commands/copy_direct/', method: 'PUT' }).reply(200, '<html>gateway</html>');
    const e = await failure(m.client.copy.copyBetweenInstances({ srcId: 1, dstId: 2, srcPath: '/a/', dstPath: '/b/' }));
    assert.equal(e.kind, 'invalid_response');
    assert.equal(e.outcomeUnknown, true);
  });

  it("the service's refusals: 400 invalid_args and 404 are known outcomes with the service's words", async () => {
    const m = mocked();
    m.pool
      .intercept({ path: '/api/v0/commands/copy_direct/', method: 'PUT' })
      .reply(400, { success: false, error: 'invalid_args', msg: 'Invalid src_path.' });
    m.pool
      .intercept({ path: '/api/v0/commands/copy_direct/', method: 'PUT' })
      .reply(404, { success: false, error: 'no_such_user', msg: 'No such user.' });
    const bad = await failure(m.client.copy.copyBetweenInstances({ srcId: 1, dstId: 2, srcPath: '', dstPath: '/b/' }));
    assert.equal(bad.kind, 'bad_request');
    assert.equal(bad.code, 'invalid_args');
    assert.equal(bad.outcomeUnknown, false);
    assert.match(bad.message, /Invalid src_path/);
    const missing = await failure(m.client.copy.copyBetweenInstances({ srcId: 1, dstId: 99, srcPath: '/a/', dstPath: '/b/' }));
    assert.equal(missing.kind, 'not_found');
    assert.equal(missing.outcomeUnknown, false);
  });

  it('cancel a copy: DELETE copy_direct with dst_id as a string', async () => {
    const m = mocked();
    m.answer('DELETE', '/api/v0/commands/copy_direct/', { success: true });
    await m.client.copy.cancelCopy(12);
    assert.deepEqual(m.sent, [{ client_id: 'me', dst_id: '12' }]);
  });

  it('cloud connections: a bare list; an odd field costs nothing, a record without an id is left out', async () => {
    const m = mocked();
    m.pool.intercept({ path: '/api/v0/users/cloud_integrations/', method: 'GET' }).reply(200, [
      { id: 5, cloud_type: 's3', name: 'bucket' },
      { id: '6', cloud_type: 7, name: 'drive' },
      { cloud_type: 's3', name: 'no id' },
    ]);
    const list = await m.client.copy.cloudConnections();
    assert.deepEqual(
      list.map((c) => [c.id, c.cloud_type, c.name]),
      [
        [5, 's3', 'bucket'],
        [6, undefined, 'drive'],
      ],
    );
    assert.match(m.logger.lines.join('\n'), /list cloud connections: .*1/);
  });

  it('cloud connections: none is an empty list; an answer that is not a list is invalid', async () => {
    const m = mocked();
    m.pool.intercept({ path: '/api/v0/users/cloud_integrations/', method: 'GET' }).reply(200, []);
    m.pool.intercept({ path: '/api/v0/users/cloud_integrations/', method: 'GET' }).reply(200, { oops: true });
    assert.deepEqual(await m.client.copy.cloudConnections(), []);
    assert.equal((await failure(m.client.copy.cloudConnections())).kind, 'invalid_response');
  });

  it('cloud sync: POST rclone with the documented fields; cancel: DELETE rclone with dst_id as a number', async () => {
    const m = mocked();
    m.answer('POST', '/api/v0/commands/rclone/', { success: true, msg: 'started' });
    m.answer('DELETE', '/api/v0/commands/rclone/', { success: true });
    const res = await m.client.copy.cloudSync({
      instanceId: 12,
      connectionId: 5,
      direction: 'Cloud To Instance',
      src: 'datasets/a',
      dst: '/workspace/a',
    });
    await m.client.copy.cancelCloudSync(12);
    assert.equal(res.message, 'started');
    assert.deepEqual(m.sent, [
      { instance_id: '12', src: 'datasets/a', dst: '/workspace/a', selected: '5', transfer: 'Cloud To Instance', flags: [] },
      { dst_id: 12 },
    ]);
    assert.ok(!JSON.stringify(m.sent).includes(KEY), 'the key travels in the header only');
  });

  it('a cloud sync whose connection drops after sending: a network error with an unknown outcome', async () => {
    const m = mocked();
    m.pool
      .intercept({ path: '/api/v0/commands/rclone/', method: 'POST' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const e = await failure(
      m.client.copy.cloudSync({ instanceId: 1, connectionId: 5, direction: 'Instance To Cloud', src: '/workspace/', dst: 'out/' }),
    );
    assert.equal(e.kind, 'network');
    assert.equal(e.outcomeUnknown, true);
  });
});

(sshdAvailable() ? describe : describe.skip)('copy and cloud sync against the simulator (real files)', function () {
  this.timeout(60_000);
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2, seed: 53 });
  const home = tempDirForSuite('gpu-rental-copy-test-');
  let client: GpuRentalClient;
  let keyPath: string;
  let a: SshTarget & { id: number };
  let b: SshTarget & { id: number };

  /** A running instance, reachable with ssh. */
  async function running(): Promise<SshTarget & { id: number }> {
    const [offer] = await rentableOffers(client);
    const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_proxy' });
    return { id: instanceId, ...(await reachableInstance(client, instanceId, keyPath)) };
  }

  async function sh(target: SshTarget, command: string): Promise<string> {
    const r = await runRemote(target, command, { timeoutMs: 20_000 });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  }

  /** Follows the instance's status message through a real poller, as the commands do. */
  async function followed(id: number, before: string | null | undefined): Promise<TransferEnd> {
    const poller = new InstancePoller({
      fetch: (signal) => client.instances.list({ signal }),
      intervalMs: () => 100,
      logger: new MemoryLogger(),
    });
    poller.setEnabled(true);
    try {
      return await followTransfer(poller, id, { before, quietMs: 20_000 });
    } finally {
      poller.dispose();
    }
  }

  before(async () => {
    ({ client } = clientFor(sim.url, DEMO_KEY));
    const key = await generateKey(join(home(), 'key'), 'copy');
    keyPath = key.privateKeyPath;
    await client.sshKeys.create(key.publicKey);
    a = await running();
    b = await running();
    await sh(
      a,
      'mkdir -p /workspace/copy-src/sub && printf one > /workspace/copy-src/one.txt && printf two > /workspace/copy-src/sub/two.txt',
    );
  });

  it('copies a folder between two instances; the destination reports done and has the files', async () => {
    const before = (await client.instances.show(b.id)).status_msg;
    const res = await client.copy.copyBetweenInstances({
      srcId: a.id,
      dstId: b.id,
      srcPath: '/workspace/copy-src/',
      dstPath: '/workspace/copied/',
    });
    assert.match(res.message ?? '', /initiated/);
    const end = await followed(b.id, before);
    assert.equal(end.outcome, 'done', JSON.stringify(end));
    assert.equal(await sh(b, 'cat /workspace/copied/one.txt /workspace/copied/sub/two.txt'), 'onetwo');
  });

  it("refusals: a path outside the container's folders is 400 invalid_args, an instance not the account's 404; neither unknown", async () => {
    const bad = await failure(client.copy.copyBetweenInstances({ srcId: a.id, dstId: b.id, srcPath: '/etc/', dstPath: '/workspace/x/' }));
    assert.equal(bad.kind, 'bad_request');
    assert.equal(bad.code, 'invalid_args');
    assert.equal(bad.outcomeUnknown, false);
    const missing = await failure(
      client.copy.copyBetweenInstances({ srcId: a.id, dstId: 999_999, srcPath: '/workspace/copy-src/', dstPath: '/workspace/x/' }),
    );
    assert.equal(missing.kind, 'not_found');
    assert.equal(missing.outcomeUnknown, false);
  });

  it('a 500 after the copy was accepted: unknown outcome, and the copy did run (which is why it is never "nothing happened")', async () => {
    const before = (await client.instances.show(b.id)).status_msg;
    sim.control.addFault({ kind: '5xx', status: 500, count: 1, method: 'PUT', path: '/commands/copy_direct', phase: 'after' });
    const e = await failure(
      client.copy.copyBetweenInstances({
        srcId: a.id,
        dstId: b.id,
        srcPath: '/workspace/copy-src/one.txt',
        dstPath: '/workspace/after-500/',
      }),
    );
    assert.equal(e.kind, 'server');
    assert.equal(e.outcomeUnknown, true);
    assert.equal((await followed(b.id, before)).outcome, 'done');
    assert.equal(await sh(b, 'cat /workspace/after-500/one.txt'), 'one');
  });

  it('cancels a copy: the destination says it was canceled', async () => {
    await sh(a, 'mkdir -p /workspace/many && for i in $(seq 1 400); do echo $i > /workspace/many/f$i; done');
    const before = (await client.instances.show(b.id)).status_msg;
    await client.copy.copyBetweenInstances({ srcId: a.id, dstId: b.id, srcPath: '/workspace/many/', dstPath: '/workspace/many-copy/' });
    await client.copy.cancelCopy(b.id);
    const end = await followed(b.id, before);
    assert.equal(end.outcome, 'failed');
    assert.match((end as { message: string }).message, /cancel/i);
  });

  it("sends a folder to the account's cloud connection and fetches it onto the other instance", async () => {
    const connections = await client.copy.cloudConnections();
    assert.ok(connections.length >= 1);
    const bucket = connections[0]!;
    let before = (await client.instances.show(a.id)).status_msg;
    await client.copy.cloudSync({
      instanceId: a.id,
      connectionId: bucket.id,
      direction: 'Instance To Cloud',
      src: '/workspace/copy-src/',
      dst: 'runs/1/',
    });
    assert.equal((await followed(a.id, before)).outcome, 'done');
    before = (await client.instances.show(b.id)).status_msg;
    await client.copy.cloudSync({
      instanceId: b.id,
      connectionId: bucket.id,
      direction: 'Cloud To Instance',
      src: 'runs/1/',
      dst: '/workspace/from-cloud/',
    });
    assert.equal((await followed(b.id, before)).outcome, 'done');
    assert.equal(await sh(b, 'cat /workspace/from-cloud/sub/two.txt'), 'two');
    await client.copy.cancelCloudSync(b.id);
  });

  it("a sync with a connection that is not the account's: 400 invalid_args", async () => {
    const e = await failure(
      client.copy.cloudSync({ instanceId: a.id, connectionId: 424_242, direction: 'Instance To Cloud', src: '/workspace/', dst: 'x/' }),
    );
    assert.equal(e.code, 'invalid_args');
    assert.equal(e.outcomeUnknown, false);
  });
});
