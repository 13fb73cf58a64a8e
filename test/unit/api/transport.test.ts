import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import * as z from 'zod';
import type { ApiErrorKind } from '../../../src/core/api/errors';
import { Transport, checkBaseUrl, encodeQuery, type TransportOptions } from '../../../src/core/api/transport';
import { failure, MemoryLogger } from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'sk-test-0123456789abcdef0123456789abcdef';

function setup(overrides: Partial<TransportOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(BASE);
  const logger = new MemoryLogger();
  const sleeps: number[] = [];
  const transport = new Transport({
    dispatcher: agent,
    baseUrl: BASE,
    getApiKey: () => KEY,
    logger,
    timeoutMs: 2_000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { agent, pool, logger, sleeps, transport };
}

const userCall = (retry: 'read' | 'write' | 'never' = 'read', method: 'GET' | 'PUT' = 'GET') => ({
  action: 'read the account',
  method,
  path: '/api/v0/users/current/',
  schema: z.object({ id: z.int(), credit: z.number() }),
  permission: 'user_read' as const,
  retry,
});

describe('transport', () => {
  describe('error mapping', () => {
    const cases: Array<[string, number, unknown, ApiErrorKind]> = [
      ['401 invalid key', 401, { success: false, error: 'auth_error', msg: 'Invalid user key' }, 'auth'],
      ['403 requires login', 403, { success: false, error: 'auth_error', msg: 'This action requires login.' }, 'auth'],
      ['404 auth_error', 404, { success: false, error: 'auth_error', msg: 'Invalid user key' }, 'auth'],
      ['400 bearer missing', 400, { msg: 'API Key not provided as bearer token.' }, 'auth'],
      ['403 scoped key', 403, { success: false, error: 'permission_denied', msg: 'no' }, 'forbidden'],
      ['404 missing', 404, { success: false, error: 'not_found', msg: 'no such thing' }, 'not_found'],
      ['410 gone', 410, { success: false, error: 'no_such_ask', msg: 'gone' }, 'not_found'],
      ['400 invalid args', 400, { success: false, error: 'invalid_args', msg: 'bad disk' }, 'bad_request'],
      ['500', 500, 'Internal Server Error', 'server'],
    ];
    for (const [name, status, body, kind] of cases) {
      it(`maps ${name} to ${kind}`, async () => {
        const { pool, transport } = setup();
        pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(status, body as object);
        const error = await failure(transport.send(userCall()));
        assert.equal(error.kind, kind);
        assert.equal(error.status, status);
        assert.equal(error.method, 'GET');
        assert.equal(error.path, '/api/v0/users/current/');
        assert.match(error.message, /^Could not read the account: /);
      });
    }

    it('names the missing permission of a scoped key', async () => {
      const { pool, transport } = setup();
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(403, { msg: 'denied' });
      const error = await failure(transport.send(userCall()));
      assert.equal(error.permission, 'user_read');
      assert.match(error.message, /lacks the "user_read" permission/);
    });

    it('keeps the service code and message of a refused request', async () => {
      const { pool, transport } = setup();
      pool
        .intercept({ path: '/api/v0/users/current/', method: 'GET' })
        .reply(404, { success: false, error: 'invalid_args', msg: 'no_such_ask Instance type by id 5 is not available.' });
      const error = await failure(transport.send(userCall()));
      assert.equal(error.code, 'invalid_args');
      assert.equal(error.serverMessage, 'no_such_ask Instance type by id 5 is not available.');
      assert.match(error.message, /not available/);
    });

    it("shows the service's bidi, zero-width and control characters as escapes, and quotes a long message cut", async () => {
      const { pool, transport } = setup();
      const crafted = 'Offer \u202Ede\u200Bleted\u2066\n(code 7)';
      pool
        .intercept({ path: '/api/v0/users/current/', method: 'GET' })
        .reply(400, { success: false, error: 'bad\u202Eargs', msg: `${crafted} ${'x'.repeat(2_000)}` });
      const error = await failure(transport.send(userCall()));
      const hidden = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u061C\u2060\uFEFF\p{Cc}]/u;
      for (const text of [error.message, error.serverMessage ?? '', error.code ?? '', JSON.stringify(error.toJSON())])
        assert.doesNotMatch(text, hidden);
      assert.match(error.message, /The service said: "Offer \\u202Ede\\u200Bleted\\u2066\\u000A\(code 7\) x+…"\./);
      assert.equal(error.code, 'bad\\u202Eargs');
      assert.ok(error.message.length < 500, `${error.message.length} characters`);
      assert.ok(error.serverMessage!.startsWith('Offer \\u202Ede'), 'the kept message reads the same words');
    });

    it('treats a 200 with success:false as a refusal', async () => {
      const { pool, transport } = setup();
      pool
        .intercept({ path: '/api/v0/users/current/', method: 'GET' })
        .reply(200, { success: false, error: 'invalid_range', msg: 'Invalid date range' });
      const error = await failure(transport.send(userCall()));
      assert.equal(error.kind, 'bad_request');
      assert.equal(error.serverMessage, 'Invalid date range');
    });

    it('reports malformed JSON as an invalid response', async () => {
      const { pool, transport } = setup();
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, '{"id": 1, "credit":');
      const error = await failure(transport.send(userCall()));
      assert.equal(error.kind, 'invalid_response');
      assert.match(error.message, /not valid JSON/);
    });

    it('names the field path where a response differs', async () => {
      const { pool, transport } = setup();
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 1, credit: 'lots' });
      const error = await failure(transport.send(userCall()));
      assert.equal(error.kind, 'invalid_response');
      assert.equal(error.fieldPath, 'credit');
      assert.match(error.message, /at "credit"/);
    });

    it('fails with auth before any request when no key is set', async () => {
      const { transport } = setup({ getApiKey: () => undefined });
      const error = await failure(transport.send(userCall()));
      assert.equal(error.kind, 'auth');
      assert.equal(error.status, undefined);
      assert.match(error.message, /no API key is set/);
    });

    it('reports a timeout', async () => {
      const { pool, transport } = setup({ timeoutMs: 50, maxAttempts: 1 });
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 1, credit: 2 }).delay(500);
      const error = await failure(transport.send(userCall()));
      assert.equal(error.kind, 'timeout');
    });

    it('passes a caller cancellation through unchanged', async () => {
      const { pool, transport } = setup();
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 1, credit: 2 }).delay(500);
      const controller = new AbortController();
      const pending = transport.send({ ...userCall(), signal: controller.signal });
      controller.abort(new Error('user cancelled'));
      await assert.rejects(pending, /user cancelled/);
    });
  });

  describe('retries', () => {
    it('retries a read on 429 and honours Retry-After', async () => {
      const { pool, transport, sleeps } = setup();
      pool
        .intercept({ path: '/api/v0/users/current/', method: 'GET' })
        .reply(429, { detail: 'API requests too frequent endpoint threshold=1.0' }, { headers: { 'retry-after': '2' } });
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 7, credit: 3 });
      const user = await transport.send(userCall());
      assert.equal(user.id, 7);
      assert.deepEqual(sleeps, [2000]);
    });

    it('backs off exponentially with jitter when no Retry-After is sent', async () => {
      const { pool, transport, sleeps } = setup({ retryBaseMs: 100, random: () => 1 });
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(503, 'busy').times(3);
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 7, credit: 3 });
      await transport.send(userCall());
      assert.deepEqual(sleeps, [100, 200, 400]);
    });

    it('keeps every jittered delay between half and all of its step', async () => {
      for (const r of [0, 0.25, 0.999]) {
        const { pool, transport, sleeps } = setup({ retryBaseMs: 1000, random: () => r });
        pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(502, 'bad gateway').times(2);
        pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 7, credit: 3 });
        await transport.send(userCall());
        assert.equal(sleeps.length, 2);
        assert.ok(sleeps[0]! >= 500 && sleeps[0]! <= 1000, `first delay ${sleeps[0]}`);
        assert.ok(sleeps[1]! >= 1000 && sleeps[1]! <= 2000, `second delay ${sleeps[1]}`);
      }
    });

    it('gives up after the last attempt with the last error', async () => {
      const { pool, transport, sleeps } = setup({ maxAttempts: 3 });
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(429, 'API requests too frequent').times(3);
      const error = await failure(transport.send(userCall()));
      assert.equal(error.kind, 'rate_limited');
      assert.equal(sleeps.length, 2);
    });

    it('does not wait for a Retry-After longer than the limit', async () => {
      const { pool, transport, sleeps } = setup({ maxRetryAfterMs: 10_000 });
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(429, 'slow down', { headers: { 'retry-after': '120' } });
      const error = await failure(transport.send(userCall()));
      assert.equal(error.kind, 'rate_limited');
      assert.equal(error.retryAfterMs, 120_000);
      assert.match(error.message, /wait 120 s/);
      assert.deepEqual(sleeps, []);
    });

    it('retries a read after a dropped connection', async () => {
      const { pool, transport } = setup();
      pool
        .intercept({ path: '/api/v0/users/current/', method: 'GET' })
        .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
      pool.intercept({ path: '/api/v0/users/current/', method: 'GET' }).reply(200, { id: 7, credit: 3 });
      assert.equal((await transport.send(userCall())).id, 7);
    });

    it('does not repeat a write whose connection dropped, and says the outcome is unknown', async () => {
      const { pool, transport } = setup();
      pool
        .intercept({ path: '/api/v0/users/current/', method: 'PUT' })
        .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
      const error = await failure(transport.send(userCall('write', 'PUT')));
      assert.equal(error.kind, 'network');
      assert.equal(error.outcomeUnknown, true);
      assert.match(error.message, /may have been carried out/);
    });

    it('repeats a write whose connection was refused, since nothing was sent', async () => {
      const { pool, transport } = setup();
      pool
        .intercept({ path: '/api/v0/users/current/', method: 'PUT' })
        .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
      pool.intercept({ path: '/api/v0/users/current/', method: 'PUT' }).reply(200, { id: 7, credit: 3 });
      assert.equal((await transport.send(userCall('write', 'PUT'))).id, 7);
    });

    it('does not repeat a write on a gateway error', async () => {
      const { pool, transport } = setup();
      pool.intercept({ path: '/api/v0/users/current/', method: 'PUT' }).reply(504, 'gateway timeout');
      const error = await failure(transport.send(userCall('write', 'PUT')));
      assert.equal(error.kind, 'server');
      assert.equal(error.outcomeUnknown, true);
    });

    it('never repeats a rent, not even on 429', async () => {
      const { pool, transport, sleeps } = setup();
      pool.intercept({ path: '/api/v0/users/current/', method: 'PUT' }).reply(429, 'too frequent');
      const error = await failure(transport.send(userCall('never', 'PUT')));
      assert.equal(error.kind, 'rate_limited');
      assert.deepEqual(sleeps, []);
    });
  });

  describe('secrets', () => {
    const provokers: Array<[ApiErrorKind, (pool: ReturnType<MockAgent['get']>) => void, Partial<TransportOptions>?]> = [
      ['auth', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(401, { msg: `Invalid user key ${KEY}` })],
      ['forbidden', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(403, { msg: `key ${KEY} lacks user_read` })],
      ['not_found', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(404, { msg: `nothing for ${KEY}` })],
      ['bad_request', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(400, { msg: `bad ${KEY}` })],
      ['rate_limited', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(429, `too frequent for ${KEY}`).times(4)],
      ['server', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(500, `trace with ${KEY}`)],
      [
        'network',
        (p) =>
          p
            .intercept({ path: /.*/, method: 'GET' })
            .replyWithError(Object.assign(new Error(`socket ${KEY}`), { code: undefined }))
            .times(4),
      ],
      ['timeout', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(200, {}).delay(300).times(4), { timeoutMs: 30 }],
      ['invalid_response', (p) => p.intercept({ path: /.*/, method: 'GET' }).reply(200, { id: KEY, credit: 1 })],
    ];
    for (const [kind, provoke, options] of provokers) {
      it(`keeps the key out of a ${kind} error and the log`, async () => {
        const { pool, transport, logger } = setup(options);
        provoke(pool);
        const error = await failure(transport.send(userCall()));
        assert.equal(error.kind, kind);
        const seen = [
          error.message,
          error.toLogString(),
          String(error),
          inspect(error, { depth: 5 }),
          JSON.stringify(error),
          error.stack ?? '',
          ...logger.lines,
        ].join('\n');
        assert.ok(!seen.includes(KEY), `the key leaked:\n${seen}`);
        for (let i = 0; i + 8 <= KEY.length; i++)
          assert.ok(!seen.includes(KEY.slice(i, i + 8)), `a run of the key leaked: ${KEY.slice(i, i + 8)}`);
      });
    }

    it('sends the key only as a bearer header', async () => {
      const { pool, transport } = setup();
      let auth: unknown;
      let path = '';
      pool.intercept({ path: /.*/, method: 'GET' }).reply(200, (opts) => {
        auth = (opts.headers as Record<string, string>).authorization;
        path = opts.path;
        return { id: 1, credit: 1 };
      });
      await transport.send(userCall());
      assert.equal(auth, `Bearer ${KEY}`);
      assert.ok(!path.includes(KEY));
    });

    it('never sends the key to a URL outside the API', async () => {
      const { agent, transport } = setup();
      let auth: unknown = 'unset';
      agent
        .get('https://logs.example.test')
        .intercept({ path: '/log/1', method: 'GET' })
        .reply(200, (opts) => {
          auth = (opts.headers as Record<string, string>).authorization;
          return 'line';
        });
      const text = await transport.send({
        action: 'read a log',
        method: 'GET',
        path: '',
        absoluteUrl: 'https://logs.example.test/log/1',
        responseType: 'text',
        schema: z.string(),
        permission: null,
        retry: 'read',
      });
      assert.equal(text, 'line');
      assert.equal(auth, undefined);
    });
  });

  describe('base URL', () => {
    it('refuses plain http to anything but this machine', () => {
      assert.throws(() => checkBaseUrl('http://console.example.com'), /Refusing to send the API key over plain http/);
      assert.throws(() => checkBaseUrl('http://10.0.0.5:8080'), /plain http/);
      assert.throws(() => checkBaseUrl('not a url'), /not a valid URL/);
      assert.throws(() => checkBaseUrl('ftp://x.example'), /https/);
    });

    it('accepts https anywhere and http on loopback', () => {
      assert.equal(checkBaseUrl('https://console.vast.ai/'), 'https://console.vast.ai');
      assert.equal(checkBaseUrl('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
      assert.equal(checkBaseUrl('http://localhost:9/'), 'http://localhost:9');
      assert.equal(checkBaseUrl('http://[::1]:9'), 'http://[::1]:9');
      assert.equal(checkBaseUrl('https://proxy.example/gpu/'), 'https://proxy.example/gpu');
    });
  });

  it('JSON-encodes query values that are not strings', () => {
    assert.equal(
      encodeQuery({ owner: 'me', limit: 25, order_by: [{ col: 'id', dir: 'asc' }], skip: undefined }),
      '?owner=me&limit=25&order_by=%5B%7B%22col%22%3A%22id%22%2C%22dir%22%3A%22asc%22%7D%5D',
    );
    assert.equal(encodeQuery({}), '');
  });
});
