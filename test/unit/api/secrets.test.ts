import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import * as z from 'zod';
import { ApiError, secretScrubber } from '../../../src/core/api/errors';
import { InstancesApi } from '../../../src/core/api/instances';
import { Transport, type TransportOptions } from '../../../src/core/api/transport';
import { failure, MemoryLogger } from '../../support';

const BASE = 'https://api.example.test';
const KEY = 'demo-key-5f0c1e9a7b3d42c8a61e0f9b2d4c7a35';
const INSTANCE_KEY = 'ik-77aa0c3e91d24b5f8e60';

/** A run this long of a key is enough to find it; the brief of the scrubber. Not imported, on purpose. */
const RUN = 8;

/** Every run of RUN characters of `secret` that occurs in `text`. */
function leaks(text: string, secret: string): string[] {
  const found = new Set<string>();
  for (let i = 0; i + RUN <= secret.length; i++) {
    const run = secret.slice(i, i + RUN);
    if (text.includes(run)) found.add(run);
  }
  return [...found];
}

/** Everything a person or a log could ever see of an error. */
function everyRendering(error: ApiError, logger?: MemoryLogger): string {
  return [
    error.message,
    error.toLogString(),
    String(error),
    `${error}`,
    inspect(error, { depth: 5 }),
    inspect({ wrapped: error }, { depth: 5 }),
    JSON.stringify(error),
    JSON.stringify({ wrapped: error }),
    error.stack ?? '',
    ...(logger?.lines ?? []),
  ].join('\n');
}

function assertNoLeak(text: string, ...secrets: string[]): void {
  for (const secret of secrets) {
    const runs = leaks(text, secret);
    assert.deepEqual(runs, [], `runs of a secret leaked (${runs.join(', ')}) in:\n${text}`);
  }
}

function setup(overrides: Partial<TransportOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const logger = new MemoryLogger();
  const transport = new Transport({
    dispatcher: agent,
    baseUrl: BASE,
    getApiKey: () => KEY,
    logger,
    timeoutMs: 2_000,
    sleep: async () => {},
    random: () => 0.5,
    maxAttempts: 1,
    ...overrides,
  });
  return { agent, pool: agent.get(BASE), logger, transport };
}

const call = {
  action: 'read the account',
  method: 'PUT' as const,
  path: '/api/v0/users/current/',
  schema: z.object({ id: z.int() }),
  permission: 'user_read' as const,
  retry: 'write' as const,
};

describe('secrets in errors and logs', () => {
  describe('the scrubber', () => {
    it('takes out a secret whole and every run of 8 or more of its characters, nothing shorter', () => {
      const scrub = secretScrubber([KEY]);
      assert.equal(scrub(`key ${KEY} invalid`), 'key [redacted] invalid');
      assert.equal(scrub('key demo-key-5f0c1e9a… invalid'), 'key [redacted]… invalid');
      assert.equal(scrub('tail 4c7a35 only'), 'tail 4c7a35 only', 'a run of 6 characters stays: it cannot identify the key');
      assert.equal(scrub('middle 9a7b3d42 here'), 'middle [redacted] here');
      assert.equal(scrub(`twice ${KEY.slice(3, 15)}/${KEY.slice(20)}`), 'twice [redacted]/[redacted]');
      assert.equal(scrub('nothing of it'), 'nothing of it');
    });

    it('keeps short secrets whole-only, and ignores values too short to be secret', () => {
      const scrub = secretScrubber(['abc', 'k3y9z', undefined, '']);
      assert.equal(scrub('abc k3y9z k3y9'), 'abc [redacted] k3y9');
    });

    it('scrubs a long text in linear time', () => {
      const scrub = secretScrubber([KEY, INSTANCE_KEY, 'x'.repeat(64)]);
      const text = `${'lorem ipsum dolor sit amet '.repeat(40_000)}${KEY}`;
      const started = performance.now();
      const out = scrub(text);
      const ms = performance.now() - started;
      assert.ok(out.endsWith('[redacted]'));
      assert.ok(ms < 2_000, `took ${ms} ms for ${text.length} characters`);
    });
  });

  describe('an ApiError', () => {
    it('keeps no secret in any field, the message, the stack, JSON or inspect', () => {
      const error = new ApiError({
        kind: 'bad_request',
        action: `use key ${KEY.slice(0, 12)}`,
        method: 'PUT',
        path: `/api/v0/x/?api_key=${KEY}`,
        status: 400,
        code: KEY,
        serverMessage: `bad key ${KEY}`,
        fieldPath: `keys.${INSTANCE_KEY}`,
        cause: Object.assign(new Error(`socket to https://h.example/?k=${KEY} closed`), { code: `E_${INSTANCE_KEY}` }),
        secrets: [KEY, INSTANCE_KEY],
      });
      assertNoLeak(everyRendering(error), KEY, INSTANCE_KEY);
      assertNoLeak(inspect(error.cause, { depth: 5 }), KEY, INSTANCE_KEY);
      assert.equal(error.code, '[redacted]');
      assert.equal(error.serverMessage, 'bad key [redacted]');
    });

    it('serialises only its own known fields, not what is attached to it later', () => {
      const error = new ApiError({
        kind: 'server',
        action: 'list instances',
        method: 'GET',
        path: '/api/v0/instances/',
        status: 500,
        secrets: [KEY],
      });
      Object.assign(error, { request: { headers: { authorization: `Bearer ${KEY}` } } });
      assertNoLeak(JSON.stringify(error) + inspect(error, { depth: 5 }), KEY);
      assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(error)) as object).sort(), [
        'action',
        'kind',
        'message',
        'method',
        'name',
        'outcomeUnknown',
        'path',
        'status',
      ]);
      assert.match(inspect(error), /ApiError|Error: Could not list instances/);
      assert.match(inspect(error), /kind: 'server'/);
    });
  });

  describe('through the transport', () => {
    const prefix = KEY.slice(0, 18);
    const html = `<html><head><title>502 Bad Gateway</title></head><body>${' '.repeat(106)}<p>upstream refused key=${KEY}</p></body></html>`;
    const bodies: Array<[string, number, string | object]> = [
      ['the error field', 400, { success: false, error: KEY, msg: 'invalid key' }],
      ['the msg field', 401, { success: false, error: 'auth_error', msg: `Invalid user key ${KEY}` }],
      ['the detail field', 403, { detail: `key ${KEY} lacks user_write` }],
      ['a prefix of the key', 404, { msg: `key ${prefix}… invalid` }],
      ['an HTML 502 page that cuts the key off', 502, html],
      ['a header-like string', 400, `Authorization: Bearer ${KEY}\r\nX-Api-Key: ${KEY}\r\n`],
      ['a bare JSON string', 500, JSON.stringify(`server trace: ${KEY}`)],
    ];
    for (const [name, status, body] of bodies) {
      it(`keeps the key out of the error and the log when the body echoes it in ${name}`, async () => {
        if (body === html)
          assert.ok(
            html.slice(0, 200).includes(KEY.slice(0, 12)) && !html.slice(0, 200).includes(KEY),
            'the page must cut the key at 200 characters, leaving a prefix',
          );
        const { pool, transport, logger } = setup();
        pool.intercept({ path: call.path, method: 'PUT' }).reply(status, body);
        const error = await failure(transport.send(call));
        assert.equal(error.status, status);
        assertNoLeak(everyRendering(error, logger), KEY);
      });
    }

    it('turns a team endpoint\'s 200 "status: failure" answer into a refusal, without the key it echoes', async () => {
      const { pool, transport, logger } = setup();
      pool.intercept({ path: call.path, method: 'PUT' }).reply(200, { status: 'failure', message: `role not found for ${KEY}` });
      const error = await failure(transport.send({ ...call, schema: z.unknown() }));
      assert.equal(error.kind, 'bad_request');
      assert.match(error.message, /role not found for \[redacted\]/);
      assertNoLeak(everyRendering(error, logger), KEY);
    });

    it('takes an instance key and the call secrets out as well', async () => {
      const { pool, transport, logger } = setup();
      pool
        .intercept({ path: call.path, method: 'PUT' })
        .reply(400, { success: false, error: INSTANCE_KEY, msg: `routing ${'rk-0f1e2d3c4b5a69788'.slice(0, 12)} wrong` });
      const error = await failure(transport.send({ ...call, apiKey: INSTANCE_KEY, secrets: ['rk-0f1e2d3c4b5a69788'] }));
      assertNoLeak(everyRendering(error, logger), INSTANCE_KEY, 'rk-0f1e2d3c4b5a69788');
    });

    it('keeps a socket error that quotes the key out of the error, its cause and the log', async () => {
      const { pool, transport, logger } = setup();
      pool
        .intercept({ path: call.path, method: 'PUT' })
        .replyWithError(Object.assign(new Error(`socket hang up for ${KEY}`), { code: undefined }));
      const error = await failure(transport.send(call));
      assert.equal(error.kind, 'network');
      assert.match(error.cause?.message ?? '', /socket hang up for \[redacted\]/);
      assertNoLeak(everyRendering(error, logger), KEY);
    });
  });

  describe('an absolute URL such as a presigned log URL', () => {
    const LOG_HOST = 'https://logs.example.test';
    const resultUrl = `${LOG_HOST}/logs/${KEY}/instance-1.log?X-Amz-Signature=0a1b2c3d4e5f60718293&api_key=${KEY}`;
    const logPath = `/logs/${KEY}/instance-1.log?X-Amz-Signature=0a1b2c3d4e5f60718293&api_key=${KEY}`;
    /** Reading the log at the presigned URL, as the client does. */
    const readLog = {
      action: 'read a log',
      method: 'GET' as const,
      path: '',
      absoluteUrl: resultUrl,
      responseType: 'text' as const,
      schema: z.string(),
      permission: null,
      retry: 'read' as const,
    };

    it('is logged without its query and without the key, and gets no key', async () => {
      const { agent, transport, logger } = setup();
      let auth: unknown = 'unset';
      let sentPath = '';
      agent
        .get(LOG_HOST)
        .intercept({ path: logPath, method: 'GET' })
        .reply(200, (opts) => {
          auth = (opts.headers as Record<string, string>).authorization;
          sentPath = opts.path;
          return 'log line';
        });
      const text = await transport.send(readLog);
      assert.equal(text, 'log line');
      assert.equal(auth, undefined, 'no key goes to a URL outside the API');
      assert.equal(sentPath, logPath, 'the presigned URL is fetched as given');
      const log = logger.lines.join('\n');
      assert.match(log, /GET https:\/\/logs\.example\.test\/logs\/\[redacted\]\/instance-1\.log -> 200/);
      assert.ok(!log.includes('X-Amz-Signature') && !log.includes('?'), log);
      assertNoLeak(log, KEY);
    });

    it('is kept out of an error the same way', async () => {
      const { agent, transport, logger } = setup();
      agent.get(LOG_HOST).intercept({ path: logPath, method: 'GET' }).reply(404, `NoSuchKey ${resultUrl}`);
      const error = await failure(transport.send(readLog));
      assert.equal(error.kind, 'not_found');
      assert.equal(error.path, `${LOG_HOST}/logs/[redacted]/instance-1.log`);
      const seen = everyRendering(error, logger);
      assert.ok(!seen.includes('0a1b2c3d4e5f60718293'), `the signature leaked:\n${seen}`);
      assertNoLeak(seen, KEY);
    });

    it('reaches neither the log nor an error when the instance log endpoint returns it', async () => {
      const { agent, pool, transport, logger } = setup({ maxAttempts: 2 });
      pool.intercept({ path: '/api/v0/instances/request_logs/7/', method: 'PUT' }).reply(200, { success: true, result_url: resultUrl });
      agent.get(LOG_HOST).intercept({ path: logPath, method: 'GET' }).reply(403, '<Error><Code>AccessDenied</Code></Error>');
      agent.get(LOG_HOST).intercept({ path: logPath, method: 'GET' }).reply(200, 'booted\n');
      const text = await new InstancesApi(transport).logs(7, { tail: 10 }, { intervalMs: 1 });
      assert.equal(text, 'booted\n');
      const log = logger.lines.join('\n');
      assertNoLeak(log, KEY);
      assert.ok(!log.includes('X-Amz-Signature'), log);
      assert.ok(
        logger.lines.some((l) => l.includes('logs.example.test/logs/[redacted]/instance-1.log -> 403')),
        `the log fetch is logged:\n${log}`,
      );
    });

    it('is refused, without quoting it, when it cannot be parsed', async () => {
      const { transport, logger } = setup();
      const error = await failure(
        transport.send({
          action: 'read a log',
          method: 'GET',
          path: '',
          absoluteUrl: `not a url ${KEY}`,
          responseType: 'text',
          schema: z.string(),
          permission: null,
          retry: 'read',
        }),
      );
      assert.equal(error.kind, 'invalid_response');
      assertNoLeak(everyRendering(error, logger), KEY);
    });
  });
});
