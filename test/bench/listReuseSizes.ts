// Part of scale.bench.ts: the instance list read in part (src/core/api/listReuse.ts) against one
// JSON.parse of the whole body, at several list sizes, in this process. The answers are the
// simulator's own (an account seeded with the largest size), cut to each size: two answers in turn,
// 1% of the records relabelled between them and the service's clock 5 s on (every record's clock
// fields differ), as a poll sees them, in chunks of 64 KiB (as undici hands them over on loopback).
//   plain: ListReuse below its threshold, which is one JSON.parse and the schema's reading of every record;
//   reuse: ListReuse above it, warm (it read the other answer just before);
//   first: ListReuse above it on its first answer (nothing known yet: every record digested and read).
// Median of alternating rounds; only the ratios within one run mean anything on a shared machine.
import { Agent } from 'undici';
import { recordsReader } from '../../src/core/api/fields';
import { INSTANCE_CLOCK_FIELDS, InstanceSchema, unreadableInstance, type Instance } from '../../src/core/api/instanceSchemas';
import { ListReuse } from '../../src/core/api/listReuse';
import { silentLogger } from '../../src/core/log';
import { LIST_REUSE_MIN_RECORDS } from '../../src/core/scale';
import { clientFor, DEMO_KEY, startSimulator } from '../support';

const CHUNK = 64 * 1024;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function chunksOf(text: string): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK) out.push(bytes.slice(at, at + CHUNK));
  return out;
}

const reuseOf = (minRecords: number) =>
  new ListReuse<Instance>({
    key: 'instances',
    readFresh: recordsReader(InstanceSchema, { byId: unreadableInstance }),
    clockFields: INSTANCE_CLOCK_FIELDS,
    minRecords,
  });

function timed(read: () => unknown): number {
  const t0 = process.hrtime.bigint();
  if (!read()) throw new Error('the list was not read');
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Two successive answers of an account of `largest` instances, parsed. */
async function answers(largest: number): Promise<[Record<string, unknown>, Record<string, unknown>]> {
  const sim = await startSimulator({ instances: largest, credit: 10_000_000, seed: 7, bootSeconds: 60 });
  try {
    const { client } = clientFor(sim.url, DEMO_KEY, { dispatcher: new Agent(), logger: silentLogger, timeoutMs: 60_000 });
    const raw = async () =>
      (await (await fetch(`${sim.url}/api/v0/instances/`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).json()) as Record<
        string,
        unknown
      >;
    const first = await raw();
    const ids = (first['instances'] as Array<{ id: number }>).map((i) => i.id);
    // 1% relabelled, spread over the list (so over every size cut from its front).
    const step = 100;
    for (let k = 0; k < ids.length; k += step) await client.instances.setLabel(ids[k + (k % 7)]!, `relabelled-${k}`);
    sim.control.advanceClock(5);
    return [first, await raw()];
  } finally {
    await sim.stop();
  }
}

export async function reuseAgainstParse(sizes: readonly number[]): Promise<void> {
  const largest = Math.max(...sizes);
  const [a, b] = await answers(largest);
  console.log(
    `\nThe instance list read in part (ListReuse) against one JSON.parse (threshold now ${LIST_REUSE_MIN_RECORDS} records), ms, median`,
  );
  console.log('  records  bytes     plain    reuse    reuse/plain  first    first/plain');
  for (const n of sizes) {
    const cut = (x: Record<string, unknown>) => chunksOf(JSON.stringify({ ...x, instances: (x['instances'] as unknown[]).slice(0, n) }));
    const bodies = [cut(a), cut(b)];
    const bytes = bodies[0]!.reduce((s, c) => s + c.length, 0);
    const plain = reuseOf(Infinity);
    const reuse = reuseOf(0);
    reuse.read(bodies[0]!);
    const rounds = Math.min(300, Math.max(9, Math.round(30_000 / n)));
    const t = { plain: [] as number[], reuse: [] as number[], first: [] as number[] };
    for (let r = 0; r < rounds + 3; r++) {
      const body = bodies[(r + 1) % 2]!;
      const order = r % 2 === 0 ? (['plain', 'reuse', 'first'] as const) : (['first', 'reuse', 'plain'] as const);
      for (const which of order) {
        const ms =
          which === 'plain'
            ? timed(() => plain.read(body))
            : which === 'reuse'
              ? timed(() => reuse.read(body))
              : timed(() => reuseOf(0).read(body));
        if (r >= 3) t[which].push(ms);
      }
    }
    const [p, u, f] = [median(t.plain), median(t.reuse), median(t.first)];
    console.log(
      `  ${String(n).padStart(7)}  ${`${(bytes / 1024).toFixed(0)} KiB`.padEnd(9)} ${p.toFixed(3).padStart(7)}  ${u.toFixed(3).padStart(7)}  ${`${(u / p).toFixed(2)}x`.padStart(11)}  ${f.toFixed(3).padStart(7)}  ${`${(f / p).toFixed(2)}x`.padStart(11)}`,
    );
  }
}
