// Which proxy a proxy address names, and what undici's agent must be told to reach it. Pure:
// no sockets, no undici, so the decision is tested by itself (test/unit/net/proxyAddress.test.ts),
// and the requests through each kind of proxy are tested with the built chunk (proxy.test.ts).
import { l10n } from '../../core/l10n';

/**
 * The proxies undici can reach: an HTTP proxy spoken to in clear (`http`) or over TLS (`https`),
 * both asked with CONNECT, and a SOCKS5 proxy (RFC 1928). undici has no SOCKS4.
 */
export type ProxyKind = 'http' | 'https' | 'socks5';

export interface ProxyAddress {
  kind: ProxyKind;
  /** The proxy's URL as undici reads it, without credentials. */
  uri: string;
  /** host:port, for messages. */
  host: string;
  /** The user name and password in the address, decoded. Never part of `uri`, `host` or a message. */
  credentials: { user: string; password: string } | undefined;
}

export interface TlsSettings {
  rejectUnauthorized: boolean;
}

/**
 * The options for the agent that reaches the proxy: undici's ProxyAgent for an HTTP(S) proxy, its
 * Socks5ProxyAgent for a SOCKS5 one (undici.ts; which one follows from the kind).
 */
export interface ProxyAgentSettings {
  uri: string;
  /** Proxy-Authorization on every CONNECT to an HTTP(S) proxy. */
  token?: string;
  /** The RFC 1929 user name and password a SOCKS5 proxy is given in its own handshake. */
  username?: string;
  password?: string;
  /** TLS to the service, inside the tunnel. */
  requestTls: TlsSettings;
  /** TLS to the proxy itself. undici's SOCKS5 agent reads its mere presence as "the proxy speaks TLS". */
  proxyTls?: TlsSettings;
}

/** The SOCKS port (RFC 1928), which undici also assumes; written out so that messages name it. */
const SOCKS_PORT = '1080';

/**
 * Reads a proxy address as VS Code's `http.proxy` and the HTTPS_PROXY / HTTP_PROXY variables write
 * it: `http://`, `https://`, `socks5://`, `socks5h://` or `socks://`, optionally with `user:password@`;
 * without a scheme, http is meant. Every SOCKS5 form sends the service's host name to the proxy,
 * which resolves it (what socks5h:// asks for; undici does not resolve names itself for a SOCKS proxy).
 * Throws, naming no credentials, for an address that does not read and for SOCKS4, which undici lacks.
 */
export function readProxyAddress(value: string | undefined): ProxyAddress | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new Error(
      l10n.t(
        'the proxy address (http.proxy or the HTTPS_PROXY / HTTP_PROXY variable) is not a URL; use the form http://host:port or socks5://host:port',
      ),
    );
  }
  const kind = kindOf(url.protocol);
  const credentials = url.username || url.password ? { user: decoded(url.username), password: decoded(url.password) } : undefined;
  url.username = '';
  url.password = '';
  if (kind === 'socks5') {
    const host = `${url.hostname.toLowerCase()}:${url.port || SOCKS_PORT}`;
    return { kind, uri: `socks5://${host}`, host, credentials };
  }
  return { kind, uri: url.href, host: url.host, credentials };
}

function kindOf(protocol: string): ProxyKind {
  switch (protocol) {
    case 'http:':
      return 'http';
    case 'https:':
      return 'https';
    case 'socks:':
    case 'socks5:':
    case 'socks5h:':
      return 'socks5';
    case 'socks4:':
    case 'socks4a:':
      throw new Error(
        l10n.t(
          'the proxy address starts with {0}//, but GPU Rental can use SOCKS version 5 only, not SOCKS4; use a SOCKS5 proxy (socks5://host:port, as ssh -D opens) or an HTTP proxy (http://host:port)',
          protocol,
        ),
      );
    default:
      throw new Error(
        l10n.t('the proxy address must start with http://, https://, socks5://, socks5h:// or socks:// (got {0}//)', protocol),
      );
  }
}

/** A percent-decoded user name or password; one that does not decode is taken as written. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * What the agent for a proxy is given. Only an https:// proxy gets `proxyTls`: TLS to the
 * proxy itself. Credentials go where the kind of proxy reads them: a Proxy-Authorization header
 * for an HTTP(S) proxy, the RFC 1929 sub-negotiation for SOCKS5. `strictSSL` (http.proxyStrictSSL)
 * applies to the service's certificate inside the tunnel and to an https:// proxy's own.
 */
export function proxyAgentOptions(proxy: ProxyAddress, strictSSL: boolean): ProxyAgentSettings {
  const tls = (): TlsSettings => ({ rejectUnauthorized: strictSSL });
  const options: ProxyAgentSettings = { uri: proxy.uri, requestTls: tls() };
  if (proxy.kind === 'https') options.proxyTls = tls();
  if (proxy.credentials) {
    const { user, password } = proxy.credentials;
    if (proxy.kind === 'socks5') {
      options.username = user;
      options.password = password;
    } else {
      options.token = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
  }
  return options;
}
