// Entry point of dist/undici.js, a second bundle that the extension loads on its first request,
// so that activation does not pay for parsing the HTTP stack. undici's modules are required
// directly: its index has no tree-shakable form and would add about 230 KB (fetch, websockets,
// caches, mocks) that the extension never uses.
/* eslint-disable @typescript-eslint/no-require-imports */
import Agent = require('undici/lib/dispatcher/agent.js');
import ProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
import Socks5ProxyAgent = require('undici/lib/dispatcher/socks5-proxy-agent.js');
import buildConnector = require('undici/lib/core/connect.js');
import DispatcherClass = require('undici/lib/dispatcher/dispatcher.js');
import api = require('undici/lib/api/index.js');
/* eslint-enable @typescript-eslint/no-require-imports */
import type { Dispatcher } from 'undici';
import { isLoopbackHost, type RequestDispatcher } from '../../core/api/transport';
import { l10n } from '../../core/l10n';
import { proxyAgentOptions, readProxyAddress, type ProxyAddress, type ProxyAgentSettings } from './proxyAddress';

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
  const httpProxy = readProxyAddress(configured ?? (env['http_proxy'] || env['HTTP_PROXY'] || undefined));
  const httpsProxy = configured ? httpProxy : (readProxyAddress(env['https_proxy'] || env['HTTPS_PROXY'] || undefined) ?? httpProxy);
  const noProxy = parseNoProxy([...settings.noProxy, env['no_proxy'] ?? env['NO_PROXY'] ?? '']);

  const direct = new Agent();
  // One agent per distinct proxy and credentials; the key stays in memory.
  const agents = new Map<string, Dispatcher>();
  const via = (proxy: ProxyAddress | undefined): Dispatcher | undefined => {
    if (!proxy) return undefined;
    const options = proxyAgentOptions(proxy, settings.strictSSL);
    const key = JSON.stringify(options);
    let agent = agents.get(key);
    if (!agent) {
      agent = proxy.kind === 'socks5' ? socks5Agent(options) : new ProxyAgent(options);
      agents.set(key, agent);
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
        throw explain(error, origin.host, proxy);
      });
    },
    async close() {
      await Promise.all([direct.close(), ...[...agents.values()].map((a) => a.close())]);
    },
  };
}

/**
 * undici's SOCKS5 agent, as its ProxyAgent makes one for a socks5:// URI, but with a connector that
 * takes an IPv6 proxy address out of its brackets: undici passes the URL's `[::1]` on to the
 * resolver, which cannot read it. Never given `proxyTls`, which it reads as "the proxy speaks TLS".
 */
function socks5Agent(options: ProxyAgentSettings): Dispatcher {
  const connect = buildConnector({});
  return new Socks5ProxyAgent(options.uri, {
    username: options.username,
    password: options.password,
    requestTls: options.requestTls,
    connect: (target, callback) => connect({ ...target, hostname: target.hostname.replace(/^\[(.*)\]$/, '$1') }, callback),
  });
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
 * transport still tells a connection never made (ECONNREFUSED, ...) from one that broke. No
 * message names the proxy's credentials: only its host:port.
 */
function explain(error: unknown, target: string, proxy: ProxyAddress | undefined): unknown {
  const codes: string[] = [];
  let message = '';
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    if (!message && e instanceof Error) message = e.message;
  }
  const certificate = codes.find((c) => UNTRUSTED_CERTIFICATE.has(c));
  if (certificate && proxy?.kind === 'https') {
    // undici's error does not say which TLS connection failed: the one to the proxy, or the one inside it.
    return new Error(
      l10n.t(
        "the TLS certificate of {0} or of the proxy {1} is not trusted ({2}); add the certificate authority that signed it to the system's trusted ones, or turn off http.proxyStrictSSL",
        target,
        proxy.host,
        certificate,
      ),
    );
  }
  if (certificate) {
    const advice = proxy
      ? l10n.t(
          "; if the proxy {0} re-signs TLS traffic, add its certificate authority to the system's trusted ones, or turn off http.proxyStrictSSL",
          proxy.host,
        )
      : '';
    return new Error(l10n.t('the TLS certificate of {0} is not trusted ({1}){2}', target, certificate, advice));
  }
  if (!proxy) return error;
  if (proxy.kind === 'socks5') return explainSocks(error, codes, message, target, proxy);
  const status = /Proxy response \((\d{3})\)|\((407)\)/.exec(message);
  const statusCode = status?.[1] ?? status?.[2];
  if (statusCode === '407') {
    return new Error(
      l10n.t(
        'the proxy {0} asked for credentials (407 Proxy Authentication Required); put them in the proxy address: http://user:password@host:port',
        proxy.host,
      ),
    );
  }
  if (statusCode) return new Error(l10n.t('the proxy {0} refused to connect to {1} (HTTP {2})', proxy.host, target, statusCode));
  return error;
}

/** undici's SOCKS5 errors (codes UND_ERR_SOCKS5_*, and two timeouts without a code) in words. */
function explainSocks(error: unknown, codes: string[], message: string, target: string, proxy: ProxyAddress): unknown {
  const code = codes.find((c) => c.startsWith('UND_ERR_SOCKS5'));
  if (code === 'UND_ERR_SOCKS5_AUTH_REJECTED') {
    return new Error(
      proxy.credentials
        ? l10n.t(
            'the SOCKS5 proxy {0} wants a sign-in method other than a user name and password, which GPU Rental cannot use; use another proxy',
            proxy.host,
          )
        : l10n.t(
            'the SOCKS5 proxy {0} asked for a user name and password; put them in the proxy address: socks5://user:password@host:port',
            proxy.host,
          ),
    );
  }
  if (code === 'UND_ERR_SOCKS5_AUTH_FAILED') {
    return new Error(l10n.t('the SOCKS5 proxy {0} refused the user name and password in the proxy address; correct them', proxy.host));
  }
  if (code?.startsWith('UND_ERR_SOCKS5_REPLY_') && /^\d+$/.test(code.slice('UND_ERR_SOCKS5_REPLY_'.length))) {
    const reason = message.replace(/^SOCKS5 connection failed: /, '');
    return new Error(l10n.t('the SOCKS5 proxy {0} could not connect to {1} ({2})', proxy.host, target, reason));
  }
  if (code || /^SOCKS5 (authentication|connection) timeout$/.test(message)) {
    // A reply that is not SOCKS5 (an HTTP or SOCKS4 proxy), or none at all.
    return new Error(
      l10n.t('the proxy {0} did not answer as a SOCKS5 proxy; check its address, and write an HTTP proxy as http://host:port', proxy.host),
    );
  }
  return error;
}
