/**
 * What the tests of the instance key need (the idle watchdog's and the job wrapper's stop
 * requests, which carry CONTAINER_API_KEY): a loopback HTTP server that holds each request until
 * the test has looked at every process's command line, then answers with the Authorization header
 * echoed back, as a careless or hostile service might; every command line on this machine; and a
 * PATH folder holding only the tools a script may use, so each of its clients (curl, wget, python3)
 * can be made the one it finds.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A request the server holds: what arrived, and `answer` to send the echo back. */
export interface HeldRequest {
  readonly method: string;
  readonly path: string;
  /** The Authorization header as sent, `''` when none. */
  readonly authorization: string;
  readonly body: string;
  /** Answers with `status` and a JSON body (and a header) that echo the Authorization header. */
  answer(status?: number): void;
}

export interface EchoServer {
  /** `http://127.0.0.1:<port>`: a base URL for the scripts. */
  readonly url: string;
  /** The next request, once it arrived; it waits unanswered until its `answer`. */
  next(timeoutMs?: number): Promise<HeldRequest>;
  /** Answers what is still held, then closes. */
  close(): Promise<void>;
}

/** Starts an echo server on loopback. */
export async function echoServer(): Promise<EchoServer> {
  const arrived: HeldRequest[] = [];
  const waiting: Array<(held: HeldRequest) => void> = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      open.add(res);
      const authorization = req.headers.authorization ?? '';
      const held: HeldRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization,
        body,
        answer(status = 200) {
          if (!open.delete(res)) return;
          res.writeHead(status, { 'content-type': 'application/json', 'x-echo': authorization });
          res.end(JSON.stringify({ success: status < 400, echo: authorization, msg: `you sent ${authorization}` }));
        },
      };
      const taker = waiting.shift();
      if (taker) taker(held);
      else arrived.push(held);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    next(timeoutMs = 20_000) {
      const ready = arrived.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(take), 1);
          reject(new Error(`no request arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        const take = (held: HeldRequest) => {
          clearTimeout(timer);
          resolve(held);
        };
        waiting.push(take);
      });
    },
    async close() {
      for (const res of open) res.destroy();
      open.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every process's command line on this machine, read now, its arguments joined by spaces; a process that ended meanwhile is left out. */
export function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // ended between the listing and the read
    }
  }
  return lines;
}

/**
 * Fills `dir` with a small script per tool that runs the machine's own (from /usr/bin or /bin), so
 * that a PATH of `dir` alone offers those tools and no other. Returns the tools not found here.
 */
export function onlyTools(dir: string, tools: readonly string[]): string[] {
  const missing: string[] = [];
  for (const tool of tools) {
    const path = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (path) writeFileSync(join(dir, tool), `#!/bin/sh\nexec ${path} "$@"\n`, { mode: 0o755 });
    else missing.push(tool);
  }
  return missing;
}

/**
 * Waits for the stop request the instance sends (`PUT /api/v0/instances/77/` with the key), and,
 * while the server holds it and the sending process is alive, checks that no command line holds
 * the key and that wget's header file (in `temp`) is readable by its owner only. Returns the held
 * request, to be answered by the caller.
 */
export async function heldStopKeepsKeyHidden(server: EchoServer, o: { key: string; client: string; temp: string }): Promise<HeldRequest> {
  const held = await server.next();
  assert.deepEqual(
    { method: held.method, path: held.path, authorization: held.authorization, body: held.body },
    { method: 'PUT', path: '/api/v0/instances/77/', authorization: `Bearer ${o.key}`, body: '{"state":"stopped"}' },
    'the service got the stop request with the key',
  );
  // The request is held: the process sending it is alive now, its command line readable.
  const lines = commandLines();
  assert.ok(
    lines.some((l) => l.includes(`${server.url}/api/v0/instances/77/`)),
    `the request's own process is seen (${o.client})`,
  );
  assert.deepEqual(
    lines.filter((l) => l.includes(o.key)),
    [],
    'no command line holds the key',
  );
  if (o.client === 'wget') {
    // wget reads the header from a file: only its owner may read it, and it is gone once the request ended.
    const files = readdirSync(o.temp);
    assert.equal(files.length, 1, files.join(', '));
    assert.equal(statSync(join(o.temp, files[0]!)).mode & 0o777, 0o600);
  }
  return held;
}
