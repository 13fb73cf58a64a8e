/**
 * How much the typed client costs on top of the bytes: for 100, 1,000 and 10,000 offers it times
 * the client's search (fetch over loopback, JSON.parse, zod validation) against a plain fetch plus
 * JSON.parse of the same bytes from the same server, and JSON.parse + validation against
 * JSON.parse alone. Rounds alternate between the contenders and medians are compared, because
 * this machine is shared: only ratios within one run mean anything.
 *
 *   npm run bench
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { GpuRentalClient } from '../../src/core/api/client';
import { OfferListSchema } from '../../src/core/api/offers';
import { silentLogger } from '../../src/core/log';
import { SCALE } from '../../src/core/scale';
import { generateOffers } from '../marketplace/catalogue';
import { DEMO_KEY } from '../support/keys';

const SIZES = [100, 1_000, SCALE.offers];
const TARGET_AT_10K = 1.3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timed(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function timedAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function serve(bytes: Buffer): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      res.end(bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function main(): Promise<void> {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const rows: string[] = [];
  let ratioAt10k = Number.NaN;
  console.log(`Node ${process.version}, ${new Date().toISOString()}`);
  console.log('offers  bytes      JSON.parse  parse+zod  zod ratio  fetch+parse  client   client ratio');
  for (const count of SIZES) {
    const text = JSON.stringify({ offers: generateOffers(count, 1) });
    const bytes = Buffer.from(text);
    const { server, url } = await serve(bytes);
    const client = new GpuRentalClient({ dispatcher, baseUrl: url, getApiKey: () => DEMO_KEY, logger: silentLogger, timeoutMs: 60_000 });
    const query = { query: { filters: {}, order: [], type: 'on-demand' as const }, limit: count };
    const raw = async () => {
      const res = await request(`${url}/api/v0/bundles/`, {
        method: 'POST',
        body: '{}',
        dispatcher,
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      });
      return JSON.parse(await res.body.text());
    };
    const rounds = count >= 10_000 ? 15 : count >= 1_000 ? 60 : 300;
    const parse: number[] = [];
    const validate: number[] = [];
    const fetchParse: number[] = [];
    const viaClient: number[] = [];
    for (let i = 0; i < 3; i++) {
      await raw();
      await client.offers.search(query);
    }
    for (let i = 0; i < rounds; i++) {
      const clientFirst = i % 2 === 1;
      if (clientFirst) viaClient.push(await timedAsync(() => client.offers.search(query)));
      fetchParse.push(await timedAsync(raw));
      if (!clientFirst) viaClient.push(await timedAsync(() => client.offers.search(query)));
      parse.push(timed(() => JSON.parse(text)));
      validate.push(timed(() => OfferListSchema.parse(JSON.parse(text))));
    }
    const zodRatio = median(validate) / median(parse);
    const clientRatio = median(viaClient) / median(fetchParse);
    if (count === SCALE.offers) ratioAt10k = clientRatio;
    rows.push(
      [
        String(count).padEnd(7),
        `${(bytes.length / 1024).toFixed(0)} KiB`.padEnd(10),
        `${median(parse).toFixed(2)} ms`.padEnd(11),
        `${median(validate).toFixed(2)} ms`.padEnd(10),
        `${zodRatio.toFixed(2)}x`.padEnd(10),
        `${median(fetchParse).toFixed(2)} ms`.padEnd(12),
        `${median(viaClient).toFixed(2)} ms`.padEnd(8),
        `${clientRatio.toFixed(2)}x`,
      ].join(' '),
    );
    console.log(rows[rows.length - 1]);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await dispatcher.close();
  const verdict = ratioAt10k <= TARGET_AT_10K ? 'within' : 'OVER';
  console.log(
    `client search at ${SCALE.offers.toLocaleString('en')} offers (the stated scale): ${ratioAt10k.toFixed(2)}x plain fetch + JSON.parse (target <= ${TARGET_AT_10K}x: ${verdict})`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
