/**
 * How a receiver checks that a delivery came from the service with the webhook's secret
 * (service-notes.md §15.3): `X-Vast-Signature-256: sha256=<hex HMAC-SHA256 of
 * "<X-Vast-Timestamp>.<raw body>">`, and a timestamp recent enough that an old delivery replayed
 * is refused. The README shows it to users for their own receivers; the tests use it as the
 * service's side would.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers as node's `IncomingMessage` has them (names lower-case), or as any plain record. */
export type DeliveryHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Whether a delivery is the service's, and why not. */
export type Verdict =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'no signature' | 'no timestamp' | 'bad signature' | 'too old' | 'from the future' };

/** The one value of a header, whatever the case of its name; a repeated header is not one value. */
function header(headers: DeliveryHeaders, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return typeof value === 'string' ? value.trim() : undefined;
}

/** The signature's bytes from `sha256=<64 hex digits>`, or undefined when it is not that. */
function signatureBytes(value: string): Buffer | undefined {
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(value);
  return m ? Buffer.from(m[1]!, 'hex') : undefined;
}

/**
 * Checks one delivery: the signature over the timestamp and the body exactly as received
 * (`rawBody`: the bytes, before any JSON parse), compared in constant time, and the timestamp
 * within `toleranceSec` of `nowSec` either way.
 */
export function verifyDelivery(
  secret: string,
  headers: DeliveryHeaders,
  rawBody: string | Uint8Array,
  nowSec: number,
  toleranceSec = 300,
): Verdict {
  const signature = header(headers, 'x-vast-signature-256');
  if (!signature) return { ok: false, reason: 'no signature' };
  const stamp = header(headers, 'x-vast-timestamp');
  if (!stamp || !/^\d{1,15}$/.test(stamp)) return { ok: false, reason: 'no timestamp' };
  const given = signatureBytes(signature);
  const expected = createHmac('sha256', secret).update(`${stamp}.`).update(rawBody).digest();
  // Both 32 bytes here: timingSafeEqual needs equal lengths, and a malformed header is simply wrong.
  if (!given || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad signature' };
  const timestamp = Number(stamp);
  if (timestamp < nowSec - toleranceSec) return { ok: false, reason: 'too old' };
  if (timestamp > nowSec + toleranceSec) return { ok: false, reason: 'from the future' };
  return { ok: true, timestamp };
}

/** The header value the service would send for a body at a timestamp (tests, and a receiver's own checks). */
export function signDelivery(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}
