import assert from 'node:assert/strict';
import { permissionsFor } from '../../../src/core/api/permissions';
import { PRICE_CONTEXT_TTL_MS, PriceContextSource, statsWithin } from '../../../src/core/offers/priceSource';
import { clientFor, DEMO_KEY, MemoryLogger, simulatorForSuite } from '../../support';

describe('price context source (simulator)', () => {
  const sim = simulatorForSuite({}, { each: true });

  /** A source over the simulator that counts the metrics requests it makes; `key` and `scope` as a window has them. */
  function source(key = DEMO_KEY, scope: { value: string | undefined } = { value: 'sim default' }) {
    const { client } = clientFor(sim.url, key, { maxAttempts: 1 });
    const counts = { current: 0, history: 0, names: [] as string[][] };
    const counted = {
      metrics: {
        current: (...args: Parameters<typeof client.metrics.current>) => {
          counts.current++;
          return client.metrics.current(...args);
        },
        history: (...args: Parameters<typeof client.metrics.history>) => {
          counts.history++;
          counts.names.push([...args[0]]);
          return client.metrics.history(...args);
        },
      },
    } as Pick<typeof client, 'metrics'>;
    let now = Date.now();
    const logger = new MemoryLogger();
    const src = new PriceContextSource({ client: () => counted, scope: () => scope.value, logger, now: () => now });
    return { src, counts, logger, step: (ms: number) => (now += ms), scope };
  }

  it('asks once for the models not cached, shares a request between concurrent callers, and asks again after 10 minutes', async () => {
    const { src, counts, step } = source();
    const [a, b] = await Promise.all([src.statsFor(['RTX 4090', 'H100 SXM']), src.statsFor(['RTX 4090'])]);
    assert.deepEqual([counts.current, counts.history], [1, 1]);
    assert.equal(a.get('RTX 4090'), b.get('RTX 4090'), 'the same answer');
    const rtx = a.get('RTX 4090')!;
    assert.ok(rtx.median7d! > 0 && rtx.history.length >= 7 * 24, `${rtx.history.length} hourly points`);
    assert.ok(rtx.history.every((p, i) => i === 0 || p.t - rtx.history[i - 1]!.t === 3600));

    await src.statsFor(['RTX 4090', 'No Such GPU', 'A100 SXM4']);
    assert.deepEqual(
      counts.names,
      [
        ['RTX 4090', 'H100 SXM'],
        ['No Such GPU', 'A100 SXM4'],
      ],
      'only the names not cached',
    );
    assert.equal(counts.current, 1, 'the current prices cover every model');
    const again = await src.statsFor(['No Such GPU', 'A100 SXM4']);
    assert.deepEqual([...again.keys()], ['A100 SXM4'], 'a model the service does not know is absent, and not asked again');
    assert.equal(counts.history, 2);

    step(PRICE_CONTEXT_TTL_MS + 1);
    await src.statsFor(['RTX 4090']);
    assert.deepEqual([counts.current, counts.history], [2, 3]);
  });

  it('keeps answers apart per service and profile, and asks nothing when signed out', async () => {
    const { src, counts, scope } = source();
    await src.statsFor(['RTX 4090']);
    scope.value = 'sim other-profile';
    await src.statsFor(['RTX 4090']);
    assert.equal(counts.history, 2);
    scope.value = undefined;
    assert.equal((await src.statsFor(['RTX 4090'])).size, 0);
    assert.equal(counts.history, 2);
  });

  it('gives an empty map to a scoped key without misc, logs it once and does not ask again at once', async () => {
    const { client: owner } = clientFor(sim.url, DEMO_KEY);
    const scoped = await owner.apiKeys.create({ name: 'no misc', permissions: permissionsFor(['instance_read']) });
    const { src, counts, logger } = source(scoped.key);
    assert.equal((await src.statsFor(['RTX 4090'])).size, 0);
    assert.equal((await src.statsFor(['RTX 4090'])).size, 0);
    assert.equal((await src.statsFor(['H100 SXM'])).size, 0);
    assert.deepEqual([counts.current, counts.history], [1, 2]);
    const warnings = logger.lines.filter((l) => l.startsWith('warn '));
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.ok(
      warnings.every((l) =>
        /Price context: could not read the (current GPU prices|GPU price history); offers are shown without it\..*misc/.test(l),
      ),
    );
    assert.ok(!logger.lines.some((l) => l.includes(scoped.key)));
  });

  it('gives an empty map when the service is unreachable, and waits at most the bound given', async () => {
    const { client } = clientFor('http://127.0.0.1:9', DEMO_KEY, { maxAttempts: 1, timeoutMs: 500 });
    const src = new PriceContextSource({ client: () => client, scope: () => 'down', logger: new MemoryLogger() });
    assert.equal((await src.statsFor(['RTX 4090'])).size, 0);
    const never = new PriceContextSource({
      client: () => ({ metrics: { current: () => new Promise(() => {}), history: () => new Promise(() => {}) } }) as never,
      scope: () => 'stuck',
      logger: new MemoryLogger(),
    });
    assert.equal((await statsWithin(never, ['RTX 4090'], 20)).size, 0);
  });
});
