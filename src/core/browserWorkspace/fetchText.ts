import type { RequestDispatcher } from '../api/transport';
import { l10n } from '../l10n';

const MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;

/**
 * A small text document (a checksum file, a release's JSON) read on this machine through the
 * extension's dispatcher, so the user's proxy applies: redirects followed (at most five, http and
 * https only), 1 MiB at most, 30 s per request. Sends no key and no cookie. Rejects with an Error
 * whose message says what went wrong (an HTTP status, too large, a redirect loop).
 */
export async function fetchText(dispatcher: RequestDispatcher, url: string, signal: AbortSignal, userAgent: string): Promise<string> {
  let at = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (at.protocol !== 'https:' && at.protocol !== 'http:') throw new Error(l10n.t('{0} is not an http or https URL', at.href));
    const res = await dispatcher.request({
      origin: at.origin,
      path: `${at.pathname}${at.search}`,
      method: 'GET',
      signal,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
      headers: { 'user-agent': userAgent, accept: 'application/vnd.github+json,text/plain;q=0.9,*/*;q=0.8' },
    });
    const location = res.headers['location'];
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      await res.body.dump();
      at = new URL(location, at);
      continue;
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(l10n.t('HTTP {0}', res.statusCode));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BYTES) {
        res.body.destroy();
        throw new Error(l10n.t('the answer is larger than {0} MiB', MAX_BYTES / 1024 / 1024));
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  throw new Error(l10n.t('more than {0} redirects', MAX_REDIRECTS));
}
