// Entry point of dist/undici.js, a second bundle that the extension loads on its first request,
// so that activation does not pay for parsing the HTTP stack. undici's modules are required
// directly: its index has no tree-shakable form and would add about 230 KB (fetch, websockets,
// caches, mocks) that the extension never uses.
/* eslint-disable @typescript-eslint/no-require-imports */
import Agent = require('undici/lib/dispatcher/agent.js');
import ProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
import DispatcherClass = require('undici/lib/dispatcher/dispatcher.js');
import api = require('undici/lib/api/index.js');
/* eslint-enable @typescript-eslint/no-require-imports */
import type { Dispatcher } from 'undici';
import { isLoopbackHost, type RequestDispatcher } from '../../core/api/transport';
import { l10n } from '../../core/l10n';

// undici's index gives every dispatcher its promise API (request, connect, ...) by assigning it to
// Dispatcher.prototype. Its own code relies on that: ProxyAgent opens its tunnel with the proxy
// client's connect(). Without the index, the same assignment has to be made here, once.
Object.assign(DispatcherClass.prototype, api);

export interface ProxySettings {
  /** VS Code's `http.proxy`; when empty, the usual HTTPS_PROXY / HTTP_PROXY variables apply. */
  proxy: string | undefined;
  /** VS Code's `http.noProxy`; NO_PROXY is added to it. Loopback is always direct. */
  noProxy: string[];
  /** VS Code's `http.proxyStrictSSL`: whether TLS certificates are checked on proxied traffic. */
  strictSSL: boolean;
}

export interface OwnedDispatcher extends RequestDispatcher {
  close(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/**
 * A dispatcher that sends each request either straight to its origin or through the proxy, decided
 * per request by the origin. Loopback (127.0.0.0/8, ::1, localhost) is always direct: the local
 * simulator's key never goes to a proxy. Direct connections always check certificates;
 * `strictSSL: false` applies only to traffic through the proxy, where a company proxy may re-sign it.
 */
export function createDispatcher(settings: ProxySettings, env: Env = process.env): OwnedDispatcher {
  try {
    return routingDispatcher(settings, env);
  } catch (error) {
    // A proxy address that does not read: every request fails with the reason, none goes direct.
    return { request: () => Promise.reject(error), close: async () => {} };
  }
}

function routingDispatcher(settings: ProxySettings, env: Env): OwnedDispatcher {
  const configured = settings.proxy?.trim() || undefined;
  const httpProxy = proxyUrl(configured ?? (env['http_proxy'] || env['HTTP_PROXY'] || undefined));
  const httpsProxy = configured ? httpProxy : (proxyUrl(env['https_proxy'] || env['HTTPS_PROXY'] || undefined) ?? httpProxy);
  const noProxy = parseNoProxy([...settings.noProxy, env['no_proxy'] ?? env['NO_PROXY'] ?? '']);

  const direct = new Agent();
  const tls = { rejectUnauthorized: settings.strictSSL };
  const agents = new Map<string, ProxyAgent>();
  const via = (proxy: ParsedProxy | undefined): ProxyAgent | undefined => {
    if (!proxy) return undefined;
    let agent = agents.get(proxy.uri);
    if (!agent) {
      agent = new ProxyAgent({ uri: proxy.uri, token: proxy.token, requestTls: tls, proxyTls: tls });
      agents.set(proxy.uri, agent);
    }
    return agent;
  };
  const forHttp = via(httpProxy);
  const forHttps = via(httpsProxy);

  return {
    request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
      const origin = new URL(String(options.origin));
      const port = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80);
      const bypass = isLoopbackHost(origin.hostname) || noProxy(bareHost(origin.hostname), port);
      const proxy = bypass ? undefined : origin.protocol === 'https:' ? httpsProxy : httpProxy;
      const agent = bypass ? direct : ((origin.protocol === 'https:' ? forHttps : forHttp) ?? direct);
      return agent.request(options).catch((error: unknown) => {
        throw explain(error, origin.host, proxy?.host);
      });
    },
    async close() {
      await Promise.all([direct.close(), ...[...agents.values()].map((a) => a.close())]);
    },
  };
}

interface ParsedProxy {
  /** The proxy's URL without credentials. */
  uri: string;
  /** host:port, for messages. */
  host: string;
  /** Proxy-Authorization from the credentials in the URL. */
  token: string | undefined;
}

/**
 * Reads a proxy URL (`http://user:pass@host:port`; without a scheme, http is meant). Credentials
 * become a Proxy-Authorization header and are never part of a message.
 */
function proxyUrl(value: string | undefined): ParsedProxy | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new Error(
      l10n.t('the proxy address (http.proxy or the HTTPS_PROXY / HTTP_PROXY variable) is not a URL; use the form http://host:port'),
    );
  }
  if (!['http:', 'https:', 'socks:', 'socks5:'].includes(url.protocol)) {
    throw new Error(l10n.t('the proxy address must start with http://, https:// or socks5:// (got {0}//)', url.protocol));
  }
  let token: string | undefined;
  if (url.username || url.password) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    token = `Basic ${Buffer.from(credentials).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  // A SOCKS proxy takes its credentials in its own handshake, not in a header.
  if (token && url.protocol.startsWith('socks')) return { uri: text, host: url.host, token: undefined };
  return { uri: url.href, host: url.host, token };
}

function bareHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * NO_PROXY / http.noProxy entries: `*`, a host and its subdomains (`example.com`, `.example.com`,
 * `*.example.com`), with an optional port (`host:8080`, `[::1]:8080`), or an IPv4 range in CIDR form
 * (`10.0.0.0/8`).
 */
export function parseNoProxy(lists: readonly string[]): (hostname: string, port: number) => boolean {
  const rules: Array<{ host: string; port: number; range?: { base: number; mask: number } }> = [];
  let all = false;
  for (const raw of lists.flatMap((list) => list.split(/[,\s]+/))) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') {
      all = true;
      continue;
    }
    const cidr = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(entry);
    if (cidr) {
      const base = ipv4(cidr[1]!);
      const bits = Number(cidr[2]);
      if (base !== undefined && bits <= 32) {
        const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
        rules.push({ host: '', port: 0, range: { base: (base & mask) >>> 0, mask } });
      }
      continue;
    }
    let host = entry;
    let port = 0;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const hostPort = /^([^:]+):(\d+)$/.exec(entry);
    if (bracketed) {
      host = bracketed[1]!;
      port = Number(bracketed[2] ?? 0);
    } else if (hostPort) {
      host = hostPort[1]!;
      port = Number(hostPort[2]);
    }
    rules.push({ host: host.replace(/^\*?\./, '').replace(/\.$/, ''), port });
  }
  return (hostname, port) => {
    if (all) return true;
    const address = ipv4(hostname);
    return rules.some((rule) => {
      if (rule.port && rule.port !== port) return false;
      if (rule.range) return address !== undefined && (address & rule.range.mask) >>> 0 === rule.range.base;
      return hostname === rule.host || hostname.endsWith(`.${rule.host}`);
    });
  };
}

function ipv4(text: string): number | undefined {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!parts) return undefined;
  const bytes = parts.slice(1).map(Number);
  if (bytes.some((b) => b > 255)) return undefined;
  return bytes.reduce((n, b) => n * 256 + b, 0);
}

const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Certificate and proxy failures in words; anything else is passed on as it came, so that the
 * transport still tells a connection never made (ECONNREFUSED, ...) from one that broke.
 */
function explain(error: unknown, target: string, proxy: string | undefined): unknown {
  const codes: string[] = [];
  let message = '';
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    if (!message && e instanceof Error) message = e.message;
  }
  const certificate = codes.find((c) => UNTRUSTED_CERTIFICATE.has(c));
  if (certificate) {
    const advice = proxy
      ? l10n.t(
          "; if the proxy {0} re-signs TLS traffic, add its certificate authority to the system's trusted ones, or turn off http.proxyStrictSSL",
          proxy,
        )
      : '';
    return new Error(l10n.t('the TLS certificate of {0} is not trusted ({1}){2}', target, certificate, advice));
  }
  if (!proxy) return error;
  const status = /Proxy response \((\d{3})\)|\((407)\)/.exec(message);
  const statusCode = status?.[1] ?? status?.[2];
  if (statusCode === '407') {
    return new Error(
      l10n.t(
        'the proxy {0} asked for credentials (407 Proxy Authentication Required); put them in the proxy address: http://user:password@host:port',
        proxy,
      ),
    );
  }
  if (statusCode) return new Error(l10n.t('the proxy {0} refused to connect to {1} (HTTP {2})', proxy, target, statusCode));
  return error;
}
