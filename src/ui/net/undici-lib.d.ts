// Types for the two undici modules that dist/undici.js bundles directly (undici's index pulls in
// fetch, websockets, caches and mocks, about 500 KB the extension never uses).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export = EnvHttpProxyAgent;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export = request;
}
