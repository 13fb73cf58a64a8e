/**
 * The answer for a path the service has no route for. The service's route table is a Pyramid one
 * (the CLI's scope file is generated from it), and Pyramid's own not-found answer is a 404 whose
 * body follows the request's Accept header: an HTML page when text/html is acceptable (which
 * `*\/*` makes it, and it comes first), a JSON object `{message, code, title}` when only
 * application/json is, and plain text otherwise. None of them has the service's usual
 * `{success, error, msg}` shape, so a client must not assume one. The key is not looked at: no
 * route, no authentication.
 */
import type { Reply } from './router';

const STATUS = '404 Not Found';
const EXPLANATION = 'The resource could not be found.';

type Offer = 'text/html' | 'application/json';
const OFFERS: readonly Offer[] = ['text/html', 'application/json'];

interface Range {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): Range[] {
  const ranges: Range[] = [];
  for (const part of header.split(',')) {
    const [media, ...params] = part.split(';').map((s) => s.trim());
    const m = /^([^\s/]+)\/([^\s/]+)$/.exec(media ?? '');
    if (!m) continue;
    let q = 1;
    for (const param of params) {
      const p = /^q=([0-9.]+)$/i.exec(param);
      if (p) q = Math.min(1, Math.max(0, Number(p[1])));
    }
    ranges.push({ type: m[1]!.toLowerCase(), subtype: m[2]!.toLowerCase(), q });
  }
  return ranges;
}

/** The quality the Accept ranges give an offer: the most specific matching range decides. */
function quality(ranges: Range[], offer: Offer): number {
  const [type, subtype] = offer.split('/') as [string, string];
  let best: { specificity: number; q: number } | undefined;
  for (const r of ranges) {
    const specificity =
      r.type === type && r.subtype === subtype
        ? 2
        : r.type === type && r.subtype === '*'
          ? 1
          : r.type === '*' && r.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (!best || specificity > best.specificity) best = { specificity, q: r.q };
  }
  return best?.q ?? 0;
}

/** Which form the answer takes for this Accept header (absent or empty: plain text). */
export function notFoundForm(accept: string | undefined): Offer | 'text/plain' {
  const ranges = parseAccept(accept ?? '');
  const ranked = OFFERS.map((offer, index) => ({ offer, index, q: quality(ranges, offer) }))
    .filter((o) => o.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.offer ?? 'text/plain';
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
}

/** The 404 for `path` (as requested, before any normalising), in the form the Accept header asks for. */
export function notFoundReply(path: string, accept: string | undefined): Reply {
  const form = notFoundForm(accept);
  if (form === 'text/html') {
    const body = `${EXPLANATION}<br/><br/>\n${escapeHtml(path)}\n\n`;
    const text = `<html>\n <head>\n  <title>${STATUS}</title>\n </head>\n <body>\n  <h1>${STATUS}</h1>\n  ${body}\n </body>\n</html>`;
    return { status: 404, text, contentType: 'text/html; charset=UTF-8' };
  }
  const body = `${EXPLANATION}\n\n\n${path}\n\n`;
  if (form === 'application/json') {
    return { status: 404, text: JSON.stringify({ message: body, code: STATUS, title: 'Not Found' }), contentType: 'application/json' };
  }
  return { status: 404, text: `${STATUS}\n\n${body}`, contentType: 'text/plain; charset=UTF-8' };
}
