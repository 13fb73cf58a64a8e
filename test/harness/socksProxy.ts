// A loopback SOCKS5 proxy (RFC 1928) that records what it is asked to carry: no authentication or
// user name and password (RFC 1929), CONNECT only. Used by the proxy tests in plain Node and inside
// VS Code's extension host; only node: modules.
//
// Like the HTTP proxy in proxy.ts, it connects only to loopback addresses: a host name is mapped
// with `hosts` (marketplace.test -> 127.0.0.1), and any other target is refused (reply 0x02). It
// notes what each connection opened with, so that a test can tell a SOCKS5 greeting from a TLS
// ClientHello, an HTTP request or a SOCKS4 request sent to the wrong kind of proxy.
import * as net from 'node:net';

/** What the first byte of a connection said it was. */
export type SocksGreeting = 'socks5' | 'socks4' | 'tls' | 'http' | 'other';

export interface SocksRecord {
  greeting: SocksGreeting;
  /** The method the proxy chose: none, user name and password, or neither acceptable. */
  method?: 'none' | 'password' | 'refused';
  /** The user name sent in the RFC 1929 sub-negotiation, and whether it and the password were accepted. */
  user?: string;
  authenticated?: boolean;
  /** The CONNECT target as the client sent it, host:port (an IPv6 address in brackets). */
  target?: string;
  /** How the client sent the target: a host name for the proxy to resolve, or an address. */
  addressType?: 'domain' | 'ipv4' | 'ipv6';
  /** The reply code sent for the request (0 = granted). */
  reply?: number;
}

export interface SocksProxy {
  /** socks5://127.0.0.1:PORT */
  url: string;
  port: number;
  /** One record per connection, in order. */
  readonly records: SocksRecord[];
  /** The CONNECT targets the proxy granted, host:port. */
  targets(): string[];
  /** Bytes carried inside granted tunnels, both ways. */
  tunnelBytes(): number;
  /** Whether `text` appears in what the proxy read after the handshake, either way. */
  saw(text: string): boolean;
  stop(): Promise<void>;
}

export interface SocksProxyOptions {
  /** Host names the proxy resolves itself, e.g. { 'marketplace.test': '127.0.0.1' }. */
  hosts?: Record<string, string>;
  /** Required credentials (RFC 1929); without them the proxy offers only "no authentication". */
  auth?: { user: string; password: string };
  /** The address to listen on; 127.0.0.1 unless given. */
  listen?: string;
}

const KEEP_TUNNEL_BYTES = 16 * 1024 * 1024;

const REPLY = { granted: 0x00, failure: 0x01, notAllowed: 0x02, refused: 0x05, commandNotSupported: 0x07, addressNotSupported: 0x08 };

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || address === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

function greetingOf(first: number, head: Buffer): SocksGreeting {
  if (first === 0x05) return 'socks5';
  if (first === 0x04) return 'socks4';
  if (first === 0x16) return 'tls';
  if (/^[A-Z]+ /.test(head.subarray(0, 8).toString('latin1'))) return 'http';
  return 'other';
}

export async function startSocksProxy(options: SocksProxyOptions = {}): Promise<SocksProxy> {
  const records: SocksRecord[] = [];
  const tunnel: Buffer[] = [];
  let tunnelBytes = 0;
  const sockets = new Set<net.Socket>();
  const hosts = new Map(Object.entries(options.hosts ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const keep = (chunk: Buffer) => {
    tunnelBytes += chunk.length;
    if (tunnelBytes <= KEEP_TUNNEL_BYTES) tunnel.push(Buffer.from(chunk));
  };

  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let record: SocksRecord | undefined;
    let buffer = Buffer.alloc(0);
    let step: 'greeting' | 'auth' | 'request' | 'connecting' = 'greeting';

    /** The reply to a request: VER REP RSV ATYP BND.ADDR BND.PORT, here always 0.0.0.0:0 unless granted. */
    const reply = (code: number, bound?: net.AddressInfo) => {
      record!.reply = code;
      const response = Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
      if (bound && net.isIPv4(bound.address)) {
        Buffer.from(bound.address.split('.').map(Number)).copy(response, 4);
        response.writeUInt16BE(bound.port, 8);
      }
      return response;
    };

    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!record) {
        record = { greeting: greetingOf(buffer[0]!, buffer) };
        records.push(record);
        if (record.greeting === 'socks4') {
          // VN=0, CD=91: request rejected. This proxy speaks SOCKS5 only.
          client.end(Buffer.from([0x00, 0x5b, 0, 0, 0, 0, 0, 0]));
          return;
        }
        if (record.greeting !== 'socks5') {
          client.destroy();
          return;
        }
      }
      if (step === 'greeting') {
        // VER NMETHODS METHODS...
        if (buffer.length < 2 || buffer.length < 2 + buffer[1]!) return;
        const methods = [...buffer.subarray(2, 2 + buffer[1]!)];
        buffer = buffer.subarray(2 + buffer[1]!);
        const wanted = options.auth ? 0x02 : 0x00;
        if (!methods.includes(wanted)) {
          record.method = 'refused';
          client.end(Buffer.from([0x05, 0xff]));
          return;
        }
        record.method = options.auth ? 'password' : 'none';
        client.write(Buffer.from([0x05, wanted]));
        step = options.auth ? 'auth' : 'request';
      }
      if (step === 'auth') {
        // VER(1) ULEN UNAME PLEN PASSWD
        if (buffer.length < 2) return;
        const userEnd = 2 + buffer[1]!;
        if (buffer.length < userEnd + 1 || buffer.length < userEnd + 1 + buffer[userEnd]!) return;
        const user = buffer.subarray(2, userEnd).toString('utf8');
        const password = buffer.subarray(userEnd + 1, userEnd + 1 + buffer[userEnd]!).toString('utf8');
        buffer = buffer.subarray(userEnd + 1 + buffer[userEnd]!);
        record.user = user;
        record.authenticated = user === options.auth!.user && password === options.auth!.password;
        if (!record.authenticated) {
          client.end(Buffer.from([0x01, 0x01]));
          return;
        }
        client.write(Buffer.from([0x01, 0x00]));
        step = 'request';
      }
      if (step === 'request') {
        // VER CMD RSV ATYP DST.ADDR DST.PORT
        if (buffer.length < 5) return;
        const type = buffer[3]!;
        const addressLength = type === 0x01 ? 4 : type === 0x04 ? 16 : type === 0x03 ? 1 + buffer[4]! : -1;
        if (addressLength < 0) {
          client.end(reply(REPLY.addressNotSupported));
          return;
        }
        if (buffer.length < 4 + addressLength + 2) return;
        const raw = buffer.subarray(4, 4 + addressLength);
        const host =
          type === 0x01
            ? [...raw].join('.')
            : type === 0x04
              ? `[${Array.from({ length: 8 }, (_, i) => raw.readUInt16BE(i * 2).toString(16)).join(':')}]`
              : raw.subarray(1).toString('utf8');
        const port = buffer.readUInt16BE(4 + addressLength);
        const command = buffer[1]!;
        buffer = buffer.subarray(4 + addressLength + 2);
        record.target = `${host}:${port}`;
        record.addressType = type === 0x01 ? 'ipv4' : type === 0x04 ? 'ipv6' : 'domain';
        if (command !== 0x01) {
          client.end(reply(REPLY.commandNotSupported));
          return;
        }
        const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
        const mapped = hosts.get(bare) ?? (bare === '0:0:0:0:0:0:0:1' ? '::1' : bare);
        if (!isLoopbackAddress(mapped)) {
          client.end(reply(REPLY.notAllowed));
          return;
        }
        step = 'connecting';
        client.off('data', onData);
        client.pause();
        const upstream = net.connect(port, mapped, () => {
          client.write(reply(REPLY.granted, upstream.address() as net.AddressInfo));
          if (buffer.length) {
            keep(buffer);
            upstream.write(buffer);
          }
          client.on('data', keep);
          upstream.on('data', keep);
          client.pipe(upstream);
          upstream.pipe(client);
          client.resume();
        });
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          if (record!.reply === REPLY.granted) client.destroy();
        });
        upstream.on('error', () => {
          if (record!.reply === undefined) client.end(reply(REPLY.refused));
          else client.destroy();
        });
        client.on('close', () => upstream.destroy());
      }
    };
    client.on('data', onData);
  });

  const listen = options.listen ?? '127.0.0.1';
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, listen, () => done()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `socks5://${listen.includes(':') ? `[${listen}]` : listen}:${port}`,
    port,
    records,
    targets: () => records.filter((r) => r.reply === REPLY.granted).map((r) => r.target!),
    tunnelBytes: () => tunnelBytes,
    saw: (text) => Buffer.concat(tunnel).includes(text),
    stop() {
      for (const socket of sockets) socket.destroy();
      return new Promise((done) => server.close(() => done()));
    },
  };
}
