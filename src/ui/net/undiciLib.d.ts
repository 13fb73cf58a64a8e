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
