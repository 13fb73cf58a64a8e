// Types for the undici modules that dist/undici.js bundles directly (undici's index pulls in
// fetch, websockets, caches and mocks, about 230 KB more that the extension never uses).
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export = Agent;
}
declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import { ProxyAgent } from 'undici';
  export = ProxyAgent;
}
declare module 'undici/lib/dispatcher/socks5-proxy-agent.js' {
  import type { Dispatcher, buildConnector } from 'undici';
  /** undici's own typings leave out `requestTls`, which its code and documentation have. */
  class Socks5ProxyAgent extends Dispatcher {
    constructor(
      proxyUrl: string,
      options?: {
        username?: string;
        password?: string;
        requestTls?: buildConnector.BuildOptions;
        proxyTls?: buildConnector.BuildOptions;
        connect?: buildConnector.connector;
      },
    );
  }
  export = Socks5ProxyAgent;
}
declare module 'undici/lib/core/connect.js' {
  import { buildConnector } from 'undici';
  export = buildConnector;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export = Dispatcher;
}
declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  /** The promise API that undici's index puts on Dispatcher.prototype. */
  const api: Pick<Dispatcher, 'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect'>;
  export = api;
}
