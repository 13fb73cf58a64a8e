import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { l10n } from '../l10n';

/*
 * The one-click sign-in to an instance's VS Code server. The server asks for a password, which must
 * not travel in a URL (a browser keeps URLs in its history, and the handoff to a browser can put
 * them on a command line). So the browser is sent to a page on this machine's loopback, at a path
 * with a one-time random name, that posts the password to the server's login form and is gone:
 * served once, or forgotten after two minutes; the server stops half a minute after the last. The page allows no script but its own, loads
 * nothing, and posts nowhere but to the server.
 */

const LIFETIME_MS = 120_000;

interface Pending {
  readonly html: string;
  readonly csp: string;
  readonly timer: NodeJS.Timeout;
}

export interface LoginPage {
  /** The server's login URL (the forwarded port's `/login?to=…`), where the password is posted. */
  readonly action: string;
  readonly password: string;
  /** Shown while the page posts (the instance's name). */
  readonly title: string;
}

/** The pages waiting for their one load, on a loopback server that runs only while one waits. */
export class LoginPages {
  private readonly pending = new Map<string, Pending>();
  private server: Server | undefined;
  private listening: Promise<number> | undefined;
  private idle: NodeJS.Timeout | undefined;

  /** `lingerMs`: how long the server stays up once no page waits, so a reload of a used page is told why it is gone. */
  constructor(private readonly lingerMs = 30_000) {}

  /** A one-time URL on 127.0.0.1 that signs the browser in to `page.action`. */
  async add(page: LoginPage, lifetimeMs = LIFETIME_MS): Promise<string> {
    const name = randomBytes(16).toString('hex');
    const nonce = randomBytes(16).toString('base64');
    const action = new URL(page.action);
    const timer = setTimeout(() => this.forget(name), lifetimeMs);
    timer.unref();
    this.pending.set(name, {
      html: loginHtml(page, nonce),
      csp: `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; form-action ${action.origin}; base-uri 'none'; frame-ancestors 'none'`,
      timer,
    });
    clearTimeout(this.idle);
    const port = await this.listen();
    return `http://127.0.0.1:${port}/open/${name}`;
  }

  /** How many pages still wait for their load (tests). */
  get waiting(): number {
    return this.pending.size;
  }

  dispose(): void {
    for (const name of [...this.pending.keys()]) this.forget(name);
    this.close();
  }

  private forget(name: string): void {
    const page = this.pending.get(name);
    if (!page) return;
    clearTimeout(page.timer);
    this.pending.delete(name);
    this.closeWhenIdle();
  }

  private closeWhenIdle(): void {
    if (this.pending.size > 0 || !this.server) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.pending.size === 0) this.close();
    }, this.lingerMs);
    this.idle.unref();
  }

  private close(): void {
    clearTimeout(this.idle);
    this.server?.close();
    this.server?.closeAllConnections();
    this.server = undefined;
    this.listening = undefined;
  }

  private listen(): Promise<number> {
    if (this.listening) return this.listening;
    const server = createServer((req, res) => {
      const name = /^\/open\/([0-9a-f]{32})$/.exec(req.url ?? '')?.[1];
      const page = name && req.method === 'GET' ? this.pending.get(name) : undefined;
      const headers = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' };
      if (!page || !name) {
        res.writeHead(404, { ...headers, 'content-type': 'text/plain;charset=utf-8' });
        res.end(`${l10n.t('This sign-in page was used or has expired. Open in Browser again from VS Code.')}\n`);
        return;
      }
      // Taken at once: a second load, even one racing this, finds nothing.
      clearTimeout(page.timer);
      this.pending.delete(name);
      res.writeHead(200, { ...headers, 'content-type': 'text/html;charset=utf-8', 'content-security-policy': page.csp });
      res.end(page.html, () => this.closeWhenIdle());
    });
    this.server = server;
    this.listening = new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
    return this.listening;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function loginHtml(page: LoginPage, nonce: string): string {
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(page.title)}</title></head>`,
    '<body style="font-family: sans-serif; margin: 3em">',
    `<p>${escapeHtml(page.title)}</p>`,
    `<form method="post" action="${escapeHtml(page.action)}">`,
    `<input type="hidden" name="password" value="${escapeHtml(page.password)}">`,
    '<noscript><button type="submit">Sign in</button></noscript>',
    '</form>',
    `<script nonce="${nonce}">document.forms[0].submit();</script>`,
    '</body></html>',
  ].join('\n');
}
