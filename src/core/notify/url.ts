/**
 * What a Notify Me URL may be, checked before any request: the service's own rules for a webhook
 * (https only, at most 2,048 characters, a host name; service-notes.md §15.3), and a host it could
 * ever deliver to (never this machine or a private network, which the service refuses at delivery).
 */
import { l10n } from '../l10n';

/** The longest URL the service accepts for a webhook. */
export const MAX_URL_LENGTH = 2048;

/** The placeholder of the URL box: a URL that works on a phone with nothing else to set up. */
export const NTFY_EXAMPLE = 'https://ntfy.sh/<topic>';

/** Whether the text holds whitespace, a control character, a quote or a backslash: nothing a URL needs. */
function hasOddCharacter(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return /[\s\u0000-\u001f\u007f-\u009f"\\]/.test(text);
}

/** The host of `https://…` as typed (no user part, no port), or '' when there is none. */
function typedHost(text: string): string {
  const authority = text.slice('https://'.length).split(/[/?#]/, 1)[0] ?? '';
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
}

/** A host the service could never deliver to: this machine, or a private or link-local address. */
function privateHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (h.startsWith('[')) return h === '[::1]' || h === '[::]' || /^\[f[cd]/.test(h) || /^\[fe[89ab]/.test(h);
  return false;
}

/** Whether the service at `baseUrl` runs on this machine or a private network (a local marketplace, a test). */
function privateService(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined || !URL.canParse(baseUrl)) return false;
  return privateHost(new URL(baseUrl).hostname);
}

/**
 * Why `text` is refused as the URL of a webhook, or undefined when it is fine. Each refusal says
 * what to do. A private or loopback receiver is refused unless the service at `serviceBaseUrl`
 * is itself on this machine or a private network, and so can reach it.
 */
export function checkNotifyUrl(text: string, serviceBaseUrl?: string): string | undefined {
  const url = text.trim();
  if (url === '') return l10n.t('Enter the https:// URL that should receive the notifications, for example {0}.', NTFY_EXAMPLE);
  if (url.length > MAX_URL_LENGTH)
    return l10n.t(
      'The service accepts a URL of at most {0} characters; this one has {1}. Use a shorter URL.',
      MAX_URL_LENGTH.toLocaleString('en-US'),
      url.length.toLocaleString('en-US'),
    );
  if (!/^https:\/\//i.test(url))
    return l10n.t(
      'The service delivers only to https:// URLs. Enter the https:// address of your receiver, for example {0}.',
      NTFY_EXAMPLE,
    );
  if (hasOddCharacter(url))
    return l10n.t('A URL has no spaces, quotes, backslashes or control characters. Copy the URL again from where you made it.');
  const host = typedHost(url);
  if (host === '' || host === '[]')
    return l10n.t('The URL has no host name after https://. Enter it whole, for example {0}.', NTFY_EXAMPLE);
  if (!URL.canParse(url)) return l10n.t('This is not a URL the service can read. Enter it whole, for example {0}.', NTFY_EXAMPLE);
  if (privateHost(host) && !privateService(serviceBaseUrl))
    return l10n.t(
      '{0} is this machine or a private network, which the service cannot reach. Use a public https:// address, for example {1}.',
      host,
      NTFY_EXAMPLE,
    );
  return undefined;
}

/** The URL's host alone, for a log line: the path of a push topic is as good as a password. */
export function urlHost(url: string): string {
  return URL.canParse(url) ? new URL(url).host : '?';
}
