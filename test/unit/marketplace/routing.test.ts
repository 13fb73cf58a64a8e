import assert from 'node:assert/strict';
import { Agent } from 'undici';
import * as z from 'zod';
import { ApiError } from '../../../src/core/api/errors';
import { Transport } from '../../../src/core/api/transport';
import { generateOffers } from '../../marketplace/catalogue';
import { notFoundForm } from '../../marketplace/notFound';
import { call, DEMO_KEY, MemoryLogger, obj, simulatorForSuite, type Marketplace } from '../../support';

async function get(sim: Marketplace, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(sim.url + path, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('marketplace: GPU names and unknown routes', () => {
  const sim = simulatorForSuite({ offerCount: 120, seed: 3 }, { each: true });

  describe('GET /api/v0/gpu_names/unique/', () => {
    it('lists each GPU name of the catalogue once, sorted, without needing a key', async () => {
      const res = await call(sim, 'GET', '/api/v0/gpu_names/unique/', undefined, null);
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const body = obj(res);
      assert.equal(body.success, true);
      const names = body.gpu_names as string[];
      const expected = [...new Set(generateOffers(120, 3).map((o) => o.gpu_name))].sort((a, b) => a.localeCompare(b, 'en'));
      assert.deepEqual(names, expected);
      assert.ok(names.length > 3, `a catalogue of 120 offers has several models, got ${names.join(', ')}`);
      assert.equal(new Set(names).size, names.length);
      assert.ok(
        names.every((n) => / /.test(n) || !/_/.test(n)),
        'names are as offers spell them, with spaces',
      );
    });

    it('names every GPU an offer search returns', async () => {
      const offers = obj(await call(sim, 'POST', '/api/v0/bundles/', { limit: 500 })).offers as Array<{ gpu_name: string }>;
      const names = new Set(obj(await call(sim, 'GET', '/api/v0/gpu_names/unique', undefined)).gpu_names as string[]);
      assert.ok(offers.length > 0);
      for (const o of offers) assert.ok(names.has(o.gpu_name), o.gpu_name);
    });
  });

  describe('a route the service does not have', () => {
    const path = '/api/v0/no_such_route/7/';

    it('answers 404 with an HTML page to a client that accepts anything (as curl, requests and fetch do)', async () => {
      const res = await get(sim, path, { authorization: `Bearer ${DEMO_KEY}`, accept: '*/*' });
      assert.equal(res.status, 404);
      assert.match(res.type, /^text\/html/);
      assert.match(res.text, /<title>404 Not Found<\/title>/);
      assert.match(res.text, /<h1>404 Not Found<\/h1>/);
      assert.match(res.text, /The resource could not be found\./);
      assert.ok(res.text.includes(path), res.text);
      assert.throws(() => JSON.parse(res.text) as unknown, 'not JSON: a client must not assume the usual error shape');
    });

    it('answers a JSON object {message, code, title} to a client that accepts only JSON', async () => {
      const res = await get(sim, path, { authorization: `Bearer ${DEMO_KEY}`, accept: 'application/json' });
      assert.equal(res.status, 404);
      assert.match(res.type, /^application\/json/);
      const body = JSON.parse(res.text) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'title']);
      assert.equal(body.code, '404 Not Found');
      assert.equal(body.title, 'Not Found');
      assert.match(String(body.message), /^The resource could not be found\.\s+\/api\/v0\/no_such_route\/7\/\s*$/);
      assert.ok(!('success' in body) && !('error' in body), "not the service's usual error shape");
    });

    it('answers plain text when the request names no acceptable type, and never asks for a key', async () => {
      const res = await get(sim, path, { accept: 'image/png' });
      assert.equal(res.status, 404, 'no key, still a 404: there is no route to authenticate for');
      assert.match(res.type, /^text\/plain/);
      assert.match(res.text, /^404 Not Found\n\nThe resource could not be found\.\n+\/api\/v0\/no_such_route\/7\/\n*$/);
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const r = await fetch(sim.url + path, { method, headers: { accept: 'application/json' }, body: '{}' });
        assert.equal(r.status, 404, method);
        assert.equal(((await r.json()) as { code: string }).code, '404 Not Found');
      }
    });

    it('escapes the path in the HTML page', async () => {
      const res = await get(sim, '/api/v0/%3Cscript%3Ex%3C%2Fscript%3E/', { accept: 'text/html' });
      assert.equal(res.status, 404);
      assert.ok(!res.text.includes('<script>'), res.text);
      assert.ok(res.text.includes('&lt;script&gt;x&lt;/script&gt;'), res.text);
    });

    it("picks the form the way the service's framework does", () => {
      assert.equal(notFoundForm('*/*'), 'text/html');
      assert.equal(notFoundForm('application/json'), 'application/json');
      assert.equal(notFoundForm('application/json, text/plain, */*'), 'text/html', 'a tie goes to the first offer, HTML');
      assert.equal(notFoundForm('text/html;q=0.5, application/json'), 'application/json');
      assert.equal(notFoundForm('text/*, application/json;q=0.9'), 'text/html');
      assert.equal(notFoundForm('application/*'), 'application/json');
      assert.equal(notFoundForm('text/html;q=0, */*'), 'application/json');
      assert.equal(notFoundForm('text/plain'), 'text/plain');
      assert.equal(notFoundForm(''), 'text/plain');
      assert.equal(notFoundForm(undefined), 'text/plain');
    });

    it("reaches the extension's own client as a not_found error, not a crash", async () => {
      const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
      const transport = new Transport({
        dispatcher,
        baseUrl: sim.url,
        getApiKey: () => DEMO_KEY,
        logger: new MemoryLogger(),
        timeoutMs: 5_000,
        maxAttempts: 1,
      });
      let error: unknown;
      try {
        await transport.send({
          action: 'read something new',
          method: 'GET',
          path: '/api/v0/not_served_here/',
          schema: z.object({ success: z.boolean() }),
          permission: 'user_read',
          retry: 'read',
        });
        assert.fail('an unknown route must fail');
      } catch (e) {
        error = e;
      } finally {
        await dispatcher.close();
      }
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.kind, 'not_found');
      assert.equal(error.status, 404);
    });
  });
});
