import assert from 'node:assert/strict';
import { failure, mockedApi } from '../../support';

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
