/**
 * The service's webhook routes on a loopback server, for the Notify Me flow tests of the fast tier
 * (the simulator's own routes are used by simulator.sim.test.ts). Shapes and limits are the
 * reference's (openapi.yaml's Notifications, service-notes.md §15.3): four webhooks per account,
 * https only, the secret in the answer to a create and a rotate only, `{success: false, error,
 * msg}` refusals. The `client:` keys besides outbid and low credit are this stub's own: the
 * reference names no others.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubWebhook {
  id: number;
  name: string | null;
  webhook_url: string;
  event_types: string[];
  secret: string;
}

export const STUB_TYPES = [
  { key: 'client:outbid', slug: 'outbid', context: 'client', display_name: 'Outbid notifications' },
  { key: 'client:low_credit', slug: 'low_credit', context: 'client', display_name: 'Low balance notifications' },
  { key: 'client:instance_offline', slug: 'instance_offline', context: 'client', display_name: 'Instance offline' },
  { key: 'client:contract_expiring', slug: 'contract_expiring', context: 'client', display_name: 'Contract expiring' },
  { key: 'client:invoice', slug: 'invoice', context: 'client', display_name: 'Invoices' },
  { key: 'host:machine_offline', slug: 'machine_offline', context: 'host', display_name: 'Machine offline' },
];

export interface StubService {
  url: string;
  hooks: StubWebhook[];
  /** `METHOD path` of every request, in order. */
  requests: string[];
  /** The bodies of the creates and changes, as sent. */
  bodies: unknown[];
  /** The next secret the stub hands out (from a counter: tests never draw random numbers). */
  nextSecret(): string;
  close(): Promise<void>;
}

const LIMIT = 4;

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** Starts the stub; `hooks` may be changed by a test between requests (another client's doing). */
export async function startStubService(): Promise<StubService> {
  let ids = 40;
  let secrets = 0;
  const hooks: StubWebhook[] = [];
  const requests: string[] = [];
  const bodies: unknown[] = [];
  // Each one unlike the others in every run of characters, so a leak of one is never taken for another's.
  const nextSecret = () => `whsec_${createHash('sha256').update(`stub secret ${++secrets}`).digest('base64url').slice(0, 32)}`;
  const shown = ({ secret: _secret, ...w }: StubWebhook) => ({ ...w, user_id: 7, created_at: 1772490000.0, updated_at: 1772490000.0 });
  const notFound = (res: ServerResponse) => reply(res, 404, { success: false, error: 'not_found', msg: 'Webhook not found.' });

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0]!;
      requests.push(`${req.method} ${path}`);
      if (req.headers.authorization !== 'Bearer stub-key')
        return reply(res, 403, { success: false, error: 'auth_error', msg: 'This action requires login.' });
      if (req.method === 'GET' && path === '/api/v0/notification-types/')
        return reply(res, 200, { success: true, notification_types: STUB_TYPES });
      if (path === '/api/v0/webhooks/') {
        if (req.method === 'GET') return reply(res, 200, { success: true, webhooks: hooks.map(shown) });
        if (req.method !== 'POST') return notFound(res);
        const body = await bodyOf(req);
        bodies.push(body);
        const url = String(body.webhook_url ?? '');
        if (hooks.length >= LIMIT)
          return reply(res, 400, { success: false, error: 'webhook_limit', msg: `You can have at most ${LIMIT} webhooks.` });
        if (!url.startsWith('https://'))
          return reply(res, 400, { success: false, error: 'invalid_url', msg: 'Webhook URLs must use https.' });
        const hook: StubWebhook = {
          id: ++ids,
          name: typeof body.name === 'string' ? body.name : null,
          webhook_url: url,
          event_types: body.event_types as string[],
          secret: nextSecret(),
        };
        hooks.push(hook);
        return reply(res, 200, {
          success: true,
          webhook: { ...shown(hook), webhook_secret: hook.secret },
          enabled_notification_preferences: hook.event_types,
        });
      }
      const m = /^\/api\/v0\/webhooks\/(\d+)\/(rotate-secret\/|test\/)?$/.exec(path);
      const hook = m ? hooks.find((h) => h.id === Number(m[1])) : undefined;
      if (!m || !hook) return notFound(res);
      if (m[2] === 'rotate-secret/' && req.method === 'POST') {
        hook.secret = nextSecret();
        return reply(res, 200, { success: true, webhook: { ...shown(hook), webhook_secret: hook.secret } });
      }
      if (m[2] === 'test/' && req.method === 'POST') return reply(res, 200, { success: true, msg: 'Test webhook delivered' });
      if (m[2] === undefined && req.method === 'PUT') {
        const body = await bodyOf(req);
        bodies.push(body);
        if (Array.isArray(body.event_types)) hook.event_types = body.event_types as string[];
        return reply(res, 200, { success: true, webhook: shown(hook) });
      }
      if (m[2] === undefined && req.method === 'DELETE') {
        hooks.splice(hooks.indexOf(hook), 1);
        return reply(res, 200, { success: true });
      }
      return notFound(res);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hooks,
    requests,
    bodies,
    nextSecret,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
