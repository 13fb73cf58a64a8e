/**
 * Where the API key may go: a base URL is checked before any key goes near it, and the serverless
 * host is derived from it. No zod and no client here, so settings and sessions can use it freely.
 */
import { l10n } from '../l10n';

const LOOPBACK_HOSTS = new Set(['localhost', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Checks a base URL before any key goes near it: https anywhere, plain http only to this machine.
 * Returns the URL without a trailing slash.
 */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(l10n.t('The base URL "{0}" is not a valid URL. Use a full address such as https://console.vast.ai.', baseUrl));
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new Error(
      l10n.t(
        'Refusing to send the API key over plain http to {0}. Use an https:// base URL (plain http is allowed only for 127.0.0.1 and localhost).',
        url.host,
      ),
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(l10n.t('The base URL must start with https:// (got {0}).', url.protocol));
  }
  if (url.search || url.hash) throw new Error(l10n.t('The base URL must not contain a query or a fragment.'));
  return url.href.replace(/\/+$/, '');
}

/**
 * The production service answers serverless workers and logs from another host than its API
 * (run.vast.ai beside console.vast.ai); any other base URL (the simulator, a proxy) serves them
 * itself. The key goes only to that host, and only over https (or to this machine).
 */
export function serverlessUrlFor(baseUrl: string): string {
  const base = checkBaseUrl(baseUrl);
  return new URL(base).hostname === 'console.vast.ai' ? 'https://run.vast.ai' : base;
}
