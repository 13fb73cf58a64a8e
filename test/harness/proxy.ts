// A loopback HTTP proxy (in clear, or over TLS as an https:// proxy) that records what it carries, a
// TCP/TLS front that puts a listener (plain or TLS with a self-signed certificate) before a loopback
// server, and the certificate itself. Used by the proxy tests in plain Node and inside VS Code's
// extension host; only node: modules. test/harness/socksProxy.ts is the SOCKS5 counterpart.
//
// The proxy connects only to loopback addresses: a host name is mapped with `hosts`
// (marketplace.test -> 127.0.0.1), and anything that does not end on this machine is refused with 502.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';

export interface ProxyRecord {
  /** `CONNECT host:port`, or the request line of an absolute-URI request. */
  line: string;
  headers: http.IncomingHttpHeaders;
}

export interface RecordingProxy {
  /** http://127.0.0.1:PORT, or https:// with `tls` */
  url: string;
  port: number;
  /** Every request the proxy was asked to carry, in order. */
  readonly records: ProxyRecord[];
  /** The CONNECT targets, host:port. */
  connects(): string[];
  /** Bytes carried inside CONNECT tunnels, both ways (what a proxy could read of TLS: nothing). */
  tunnelBytes(): number;
  /** Whether `text` appears anywhere the proxy could read: request lines, headers, tunnel bytes. */
  saw(text: string): boolean;
  clear(): void;
  stop(): Promise<void>;
}

export interface ProxyOptions {
  /** Host names the proxy resolves itself, e.g. { 'marketplace.test': '127.0.0.1' }. */
  hosts?: Record<string, string>;
  /** Required credentials; without them the proxy answers 407. */
  auth?: { user: string; password: string };
  /** The address to listen on; 127.0.0.1 unless given. */
  listen?: string;
  /** A key and certificate: the proxy is then spoken to over TLS (an https:// proxy). */
  tls?: { key: string; cert: string };
}

/** Tunnel bytes kept for `saw`; the tests move a few hundred KB at most. */
const KEEP_TUNNEL_BYTES = 16 * 1024 * 1024;

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || address === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

export async function startProxy(options: ProxyOptions = {}): Promise<RecordingProxy> {
  const records: ProxyRecord[] = [];
  const tunnel: Buffer[] = [];
  let tunnelBytes = 0;
  const sockets = new Set<net.Socket>();
  const hosts = new Map(Object.entries(options.hosts ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString('base64')}` : undefined;

  const resolve = (hostname: string): string | undefined => {
    const bare = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    const address = hosts.get(bare) ?? bare;
    return isLoopbackAddress(address) ? address : undefined;
  };
  const keep = (chunk: Buffer) => {
    tunnelBytes += chunk.length;
    if (tunnelBytes <= KEEP_TUNNEL_BYTES) tunnel.push(Buffer.from(chunk));
  };

  const handle: http.RequestListener = (req, res) => {
    records.push({ line: `${req.method} ${req.url} HTTP/${req.httpVersion}`, headers: req.headers });
    if (expected && req.headers['proxy-authorization'] !== expected) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URI expected');
      return;
    }
    const address = resolve(target.hostname);
    if (!address || target.protocol !== 'http:') {
      res.writeHead(502).end('this test proxy reaches only loopback http');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: address, port: Number(target.port) || 80, method: req.method, path: target.pathname + target.search, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  };
  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handle) : http.createServer(handle);
  // A client that refuses the certificate closes the connection mid-handshake: not a test failure.
  server.on('tlsClientError', () => {});
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    records.push({ line: `CONNECT ${req.url} HTTP/${req.httpVersion}`, headers: req.headers });
    client.on('error', () => client.destroy());
    if (expected && req.headers['proxy-authorization'] !== expected) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    const address = match ? resolve(match[1]!) : undefined;
    if (!match || !address) {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = net.connect(Number(match[2]), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) {
        keep(head);
        upstream.write(head);
      }
      client.on('data', keep);
      upstream.on('data', keep);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => {
      if (!client.writableEnded) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });

  const listen = options.listen ?? '127.0.0.1';
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, listen, () => done()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://${listen.includes(':') ? `[${listen}]` : listen}:${port}`,
    port,
    records,
    connects: () => records.filter((r) => r.line.startsWith('CONNECT ')).map((r) => r.line.split(' ')[1]!),
    tunnelBytes: () => tunnelBytes,
    saw(text) {
      const inHeaders = records.some((r) => r.line.includes(text) || JSON.stringify(r.headers).includes(text));
      return inHeaders || Buffer.concat(tunnel).includes(text);
    },
    clear() {
      records.length = 0;
      tunnel.length = 0;
      tunnelBytes = 0;
    },
    stop: () => closeServer(server, sockets),
  };
}

export interface Front {
  /** The port the front listens on. */
  port: number;
  /** How many connections it has accepted. */
  connections(): number;
  stop(): Promise<void>;
}

/**
 * Listens on `listen` (a loopback address) and pipes every connection to 127.0.0.1:`targetPort`;
 * with `tls`, it ends TLS first, so a plain-http server is reached over https.
 */
export async function startFront(options: { targetPort: number; listen?: string; tls?: { key: string; cert: string } }): Promise<Front> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const forward = (socket: net.Socket) => {
    accepted++;
    sockets.add(socket);
    const upstream = net.connect(options.targetPort, '127.0.0.1');
    sockets.add(upstream);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => (sockets.delete(socket), upstream.destroy()));
    upstream.on('close', () => (sockets.delete(upstream), socket.destroy()));
    socket.pipe(upstream);
    upstream.pipe(socket);
  };
  const server = options.tls ? tls.createServer({ key: options.tls.key, cert: options.tls.cert }, forward) : net.createServer(forward);
  // A client that refuses the certificate closes the connection mid-handshake: not a test failure.
  server.on('tlsClientError', () => {});
  const listen = options.listen ?? '127.0.0.1';
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, listen, () => done()));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => accepted,
    stop: () => closeServer(server, sockets),
  };
}

/** A throwaway self-signed certificate for `hostname`, made with openssl; nothing is kept on disk. */
export function selfSignedCertificate(hostname: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${hostname}`,
        '-addext',
        `subjectAltName=DNS:${hostname}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether this machine can listen on ::1. */
export async function hasIpv6Loopback(): Promise<boolean> {
  const server = net.createServer();
  return new Promise((done) => {
    server.once('error', () => done(false));
    server.listen(0, '::1', () => server.close(() => done(true)));
  });
}

function closeServer(server: net.Server, sockets: Set<net.Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((done) => server.close(() => done()));
}
