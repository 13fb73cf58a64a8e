// The user's uplink for test/bench/cluster.bench.ts: a TCP relay per node, every byte sent towards a
// node waiting for one shared token bucket. It runs in a child process of its own, as a network
// would: work the extension's code does in the bench's event loop (listing files, reading ssh's
// output) must not hold back the bytes on their way, which a relay in the same loop would do.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Transform } from 'node:stream';

/**
 * One token bucket for every connection: chunks pass in the order they came, each once the bucket
 * is not in debt, taking its size from it (so the debt is at most one chunk, repaid before the next
 * passes); idle time refills it up to `burst` bytes.
 */
class TokenBucket {
  /** Bytes that have passed so far. */
  passed = 0;
  private tokens: number;
  private last = performance.now();
  private readonly waiting: Array<{ bytes: number; go: () => void }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bytesPerMs: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Resolves when `bytes` may pass. */
  take(bytes: number): Promise<void> {
    return new Promise((go) => {
      this.waiting.push({ bytes, go });
      this.pump();
    });
  }

  private pump(): void {
    if (this.timer) return;
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * this.bytesPerMs);
    this.last = now;
    while (this.waiting.length > 0 && this.tokens >= 0) {
      const next = this.waiting.shift()!;
      this.tokens -= next.bytes;
      this.passed += next.bytes;
      next.go();
    }
    if (this.waiting.length === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(1, -this.tokens / this.bytesPerMs),
    );
  }
}

/** The relays, in the child: what is sent to a node waits for the bucket; what comes back is not paced. */
function serveRelays(mbit: number) {
  const bucket = new TokenBucket((mbit * 1e6) / 8 / 1000, 256 * 1024);
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
  };
  const relay = (host: string, port: number) =>
    new Promise<number>((resolve, reject) => {
      const server = createServer({ allowHalfOpen: true }, (local) => {
        const remote = connect({ host, port, allowHalfOpen: true });
        track(local);
        track(remote);
        const paced = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            bucket.take(chunk.length).then(() => done(null, chunk), done);
          },
        });
        const cut = () => {
          local.destroy();
          remote.destroy();
        };
        local.once('error', cut);
        remote.once('error', cut);
        // Each direction ends on its own (ssh half-closes), as on a direct connection.
        local.pipe(paced).pipe(remote);
        remote.pipe(local);
      });
      servers.push(server);
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const end = () => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) server.close();
  };
  return { bucket, relay, end };
}

type Question = { op: 'relay'; host: string; port: number } | { op: 'passed' };
type Ask = Question & { id: number };
type Answer = { id: number; port?: number; passed?: number; error?: string };

/**
 * The user's uplink of `mbit` Mbit/s, shared by every node: `relay(host, port)` gives a port on
 * 127.0.0.1 that reaches host:port through it; `passed()` the bytes sent through it so far;
 * `close()` ends the relays, every connection through them and the child process.
 */
export async function shapedUplink(mbit: number) {
  const child: ChildProcess = fork(__filename, ['--relay', String(mbit)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const asked = new Map<number, (a: Answer) => void>();
  let next = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (a: Answer) => asked.get(a.id)?.(a));
  void exited.then(() => {
    for (const answer of asked.values()) answer({ id: -1, error: 'the uplink relay exited' });
  });
  const ask = (q: Question) =>
    new Promise<Answer>((resolve, reject) => {
      const id = next++;
      asked.set(id, (a) => {
        asked.delete(id);
        if (a.error) reject(new Error(a.error));
        else resolve(a);
      });
      child.send({ ...q, id });
    });
  await ask({ op: 'passed' }); // up and answering
  return {
    relay: async (host: string, port: number) => (await ask({ op: 'relay', host, port })).port!,
    passed: async () => (await ask({ op: 'passed' })).passed!,
    close: async () => {
      child.kill();
      await exited;
    },
  };
}

// In the child: serve the relays until the bench closes it or goes away.
if (process.argv[2] === '--relay' && process.send) {
  const relays = serveRelays(Number(process.argv[3]));
  const answer = (a: Answer) => process.send!(a);
  process.on('message', (q: Ask) => {
    if (q.op === 'passed') answer({ id: q.id, passed: relays.bucket.passed });
    else
      relays.relay(q.host, q.port).then(
        (port) => answer({ id: q.id, port }),
        (error: unknown) => answer({ id: q.id, error: String(error) }),
      );
  });
  process.once('disconnect', () => {
    relays.end();
    process.exit(0);
  });
  process.once('SIGTERM', () => {
    relays.end();
    process.exit(0);
  });
}
