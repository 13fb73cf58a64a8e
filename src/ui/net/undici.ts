// Entry point of dist/undici.js, a second bundle that the extension loads on its first request,
// so that activation does not pay for parsing the HTTP stack. The two modules are required directly:
// undici's index has no tree-shakable form and would add about 500 KB.
/* eslint-disable @typescript-eslint/no-require-imports */
import EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent.js');
import apiRequest = require('undici/lib/api/api-request.js');
/* eslint-enable @typescript-eslint/no-require-imports */
import type { Dispatcher } from 'undici';
import type { RequestDispatcher } from '../../core/api/transport';

export interface ProxySettings {
  /** VS Code's `http.proxy`; when empty, the usual HTTP(S)_PROXY variables apply. */
  proxy: string | undefined;
  /** VS Code's `http.noProxy` plus NO_PROXY; loopback is always direct. */
  noProxy: string[];
  strictSSL: boolean;
}

export interface OwnedDispatcher extends RequestDispatcher {
  close(): Promise<void>;
}

export function createDispatcher(settings: ProxySettings): OwnedDispatcher {
  const noProxy = [...settings.noProxy, process.env.no_proxy ?? process.env.NO_PROXY ?? '', 'localhost', '127.0.0.1', '::1']
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .filter(Boolean);
  const agent = new EnvHttpProxyAgent({
    httpProxy: settings.proxy || undefined,
    httpsProxy: settings.proxy || undefined,
    noProxy: [...new Set(noProxy)].join(','),
    connect: { rejectUnauthorized: settings.strictSSL },
    requestTls: { rejectUnauthorized: settings.strictSSL },
    proxyTls: { rejectUnauthorized: settings.strictSSL },
  } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
  return {
    request: (options: Dispatcher.RequestOptions) => apiRequest.call(agent, options),
    close: () => agent.close(),
  };
}
