/**
 * Delivering notification webhooks (service notes §15.3). Each delivery is a `POST` of the event's
 * JSON to the webhook's https URL with these headers:
 *
 *   X-Vast-Event-Id          the event's id, the same on every attempt (receivers deduplicate on it)
 *   X-Vast-Delivery-Attempt  1, 2, ...
 *   X-Vast-Timestamp         integer seconds (the simulator's clock) when this attempt was signed
 *   X-Vast-Signature-256     sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>", keyed by the secret>
 *
 * 2xx is delivered. 408, 429, 5xx, a connection error and a timeout (10 s) are tried again, up to
 * MAX_ATTEMPTS in all, after a backoff; a redirect (3xx, never followed), any other 4xx, a refused
 * target and a certificate the machine does not trust are permanent failures. A test delivery is
 * sent once, never retried.
 *
 * The target must resolve to a public address: loopback, private, link-local and other special
 * ranges are refused before anything is sent, as the service refuses them. In test mode
 * (`webhookTestMode`) they are allowed, a self-signed certificate is accepted, and the backoff is
 * short; nothing else changes. Every attempt is recorded for the control API. Deliveries never
 * hold up an API answer (the caller does not wait, except the test route), never throw, and end
 * when the simulator closes: requests in flight are destroyed and waiting retries dropped.
 */
import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { BlockList, isIP } from 'node:net';

/** What a delivery's body carries; `notif_type` is the event's short slug (`outbid`). */
export interface WebhookEvent {
  event_id: string;
  user_id: number;
  notif_type: string;
  subject: string;
  message: string;
  timestamp: number;
}

export interface WebhookTarget {
  id: number;
  url: string;
  secret: string;
}

/** One attempt, as `GET /__control/webhook-deliveries` lists it. */
export interface DeliveryAttempt {
  webhook_id: number;
  url: string;
  event_id: string;
  notif_type: string;
  attempt: number;
  /** The receiver's HTTP status; null when none came (refused, connection error, timeout). */
  status: number | null;
  error: string | null;
  /** `retrying` when another attempt follows. */
  outcome: 'delivered' | 'retrying' | 'failed';
  /** The simulator's clock, epoch seconds. */
  at: number;
}

export interface DeliveryOutcome {
  delivered: boolean;
  attempts: number;
  status: number | null;
  error: string | null;
}

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Attempts of one event to one webhook, the first included. */
export const MAX_ATTEMPTS = 4;
/** Waits before the 2nd, 3rd and 4th attempts. */
export const TEST_BACKOFF_MS: readonly number[] = [200, 400, 800];
export const BACKOFF_MS: readonly number[] = [10_000, 60_000, 300_000];
/** Attempts kept for the control API (the oldest go first). */
const KEEP_ATTEMPTS = 2000;

/** `sha256=<hex>` over `<timestamp>.<body>`, as `X-Vast-Signature-256` carries it. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Addresses a delivery may not reach outside test mode. */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** Whether an address is loopback, private, link-local or otherwise not on the public internet. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return !NOT_PUBLIC.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

interface AttemptResult {
  status: number | null;
  error: string | null;
  delivered: boolean;
  retryable: boolean;
}

const permanent = (error: string, status: number | null = null): AttemptResult => ({ status, error, delivered: false, retryable: false });

/** How an HTTP status ends an attempt. */
function judge(status: number): AttemptResult {
  if (status >= 200 && status < 300) return { status, error: null, delivered: true, retryable: false };
  if (status >= 300 && status < 400) return permanent(`HTTP ${status}: a redirect is not followed`, status);
  if (status === 408 || status === 429 || status >= 500) return { status, error: `HTTP ${status}`, delivered: false, retryable: true };
  return permanent(`HTTP ${status}`, status);
}

export class WebhookSender {
  private readonly log: DeliveryAttempt[] = [];
  private readonly requests = new Set<ClientRequest>();
  private readonly waits = new Map<NodeJS.Timeout, () => void>();
  private readonly jobs = new Set<Promise<DeliveryOutcome>>();
  private closed = false;

  constructor(
    private readonly o: {
      /** Loopback and private targets allowed, self-signed certificates accepted, short backoff. */
      testMode: boolean;
      /** The simulator's clock, epoch ms. */
      now: () => number;
      report: (line: string) => void;
    },
  ) {}

  /** Every attempt so far, oldest first. */
  attempts(): DeliveryAttempt[] {
    return this.log.map((a) => ({ ...a }));
  }

  /** Resolves once no delivery is in flight or waiting to be retried. */
  async idle(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs]);
  }

  /** Delivers `event` to one webhook, retrying when `retry`; resolves with how it ended, never rejects. */
  send(target: WebhookTarget, event: WebhookEvent, o: { retry: boolean }): Promise<DeliveryOutcome> {
    const job = this.run(target, event, o.retry).catch((error: unknown): DeliveryOutcome => {
      this.o.report(`webhook ${target.id}: delivery failed: ${String(error)}`);
      return { delivered: false, attempts: 0, status: null, error: String(error) };
    });
    this.jobs.add(job);
    void job.then(() => this.jobs.delete(job));
    return job;
  }

  /** Stops every delivery: requests in flight are destroyed, waiting retries dropped, nothing new starts. */
  close(): void {
    this.closed = true;
    for (const req of this.requests) req.destroy(new Error('the simulator stopped'));
    this.requests.clear();
    for (const [timer, wake] of this.waits) {
      clearTimeout(timer);
      wake();
    }
    this.waits.clear();
  }

  private async run(target: WebhookTarget, event: WebhookEvent, retry: boolean): Promise<DeliveryOutcome> {
    const body = JSON.stringify(event);
    const backoff = this.o.testMode ? TEST_BACKOFF_MS : BACKOFF_MS;
    for (let attempt = 1; ; attempt++) {
      if (this.closed) return { delivered: false, attempts: attempt - 1, status: null, error: 'the simulator stopped' };
      const result = await this.attempt(target, body, event, attempt);
      const last = result.delivered || !retry || !result.retryable || attempt >= MAX_ATTEMPTS || this.closed;
      this.log.push({
        webhook_id: target.id,
        url: target.url,
        event_id: event.event_id,
        notif_type: event.notif_type,
        attempt,
        status: result.status,
        error: result.error,
        outcome: result.delivered ? 'delivered' : last ? 'failed' : 'retrying',
        at: Math.floor(this.o.now() / 1000),
      });
      if (this.log.length > KEEP_ATTEMPTS) this.log.splice(0, this.log.length - KEEP_ATTEMPTS);
      if (last) return { delivered: result.delivered, attempts: attempt, status: result.status, error: result.error };
      await this.pause(backoff[Math.min(attempt - 1, backoff.length - 1)]!);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waits.delete(timer);
        resolve();
      }, ms);
      timer.unref();
      this.waits.set(timer, resolve);
    });
  }

  /** One POST: the target checked and resolved first (the address connected to is the one checked). */
  private async attempt(target: WebhookTarget, body: string, event: WebhookEvent, attempt: number): Promise<AttemptResult> {
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      return permanent('the URL does not parse');
    }
    if (url.protocol !== 'https:') return permanent('only https:// targets are delivered to');
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: LookupAddress[];
    try {
      addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
    } catch (error) {
      return {
        status: null,
        error: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        delivered: false,
        retryable: true,
      };
    }
    if (addresses.length === 0) return { status: null, error: `${host} does not resolve`, delivered: false, retryable: true };
    const blocked = this.o.testMode ? undefined : addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) return permanent(`refused: ${host} resolves to ${blocked.address}, not a public address`);
    if (this.closed) return permanent('the simulator stopped');
    const chosen = addresses.find((a) => a.family === 4) ?? addresses[0]!;
    const timestamp = Math.floor(this.o.now() / 1000);
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        this.requests.delete(req);
        resolve(result);
      };
      const req = request(
        {
          protocol: 'https:',
          hostname: host,
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          agent: false,
          rejectUnauthorized: !this.o.testMode,
          // Connect to the address that was checked, not to what a second lookup might say.
          lookup: (_name, options, callback) => {
            if ((options as { all?: boolean }).all) (callback as (e: null, a: LookupAddress[]) => void)(null, [chosen]);
            else callback(null, chosen.address, chosen.family);
          },
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
            'X-Vast-Event-Id': event.event_id,
            'X-Vast-Delivery-Attempt': String(attempt),
            'X-Vast-Timestamp': String(timestamp),
            'X-Vast-Signature-256': signature(target.secret, timestamp, body),
            Connection: 'close',
          },
        },
        (res) => {
          const result = judge(res.statusCode ?? 0);
          res.on('error', () => finish(result));
          res.on('end', () => finish(result));
          res.on('close', () => finish(result));
          // The body is not read for anything: drained, so the socket can close.
          res.resume();
        },
      );
      this.requests.add(req);
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`)), WEBHOOK_TIMEOUT_MS);
      deadline.unref();
      req.on('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ?? '';
        // A certificate this machine does not trust will not be trusted on the next attempt either.
        if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) finish(permanent(`TLS: ${error.message}`));
        else finish({ status: null, error: error.message, delivered: false, retryable: !this.closed });
      });
      req.end(body);
    });
  }
}
