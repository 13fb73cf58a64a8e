import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { signDelivery, verifyDelivery } from '../../../src/core/notify/verify';

describe("Notify Me: a delivery's signature (verifyDelivery)", () => {
  const SECRET = 'whsec_it_5c1b8e0f3a7d4b29';
  const BODY =
    '{"event_id":"evt_1","user_id":7,"notif_type":"outbid","subject":"Outbid","message":"Instance 12 was outbid","timestamp":1772490000}';
  const NOW = 1_772_490_030;
  /** The header as the service documents it, computed here by hand (not by signDelivery). */
  const signed = (secret: string, ts: number, body: string) =>
    `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`, 'utf8').digest('hex')}`;
  const headers = (signature: string, ts: number | string) => ({ 'x-vast-signature-256': signature, 'x-vast-timestamp': String(ts) });

  it('accepts a good signature over "<timestamp>.<raw body>" within the window, from text or bytes, whatever the header case', () => {
    const ts = 1_772_490_000;
    assert.deepEqual(verifyDelivery(SECRET, headers(signed(SECRET, ts, BODY), ts), BODY, NOW, 300), { ok: true, timestamp: ts });
    assert.deepEqual(verifyDelivery(SECRET, headers(signed(SECRET, ts, BODY), ts), Buffer.from(BODY), NOW, 300), {
      ok: true,
      timestamp: ts,
    });
    const upper = {
      'X-Vast-Signature-256': signed(SECRET, ts, BODY).toUpperCase().replace('SHA256=', 'sha256='),
      'X-Vast-Timestamp': `${ts}`,
    };
    assert.equal(verifyDelivery(SECRET, upper, BODY, NOW).ok, true);
    assert.equal(signDelivery(SECRET, ts, BODY), signed(SECRET, ts, BODY));
  });

  it('refuses a bad signature: another secret, a body changed by one byte, a timestamp changed, a malformed header', () => {
    const ts = 1_772_490_000;
    const good = signed(SECRET, ts, BODY);
    const bad = { ok: false, reason: 'bad signature' };
    assert.deepEqual(verifyDelivery(SECRET, headers(signed('whsec_other', ts, BODY), ts), BODY, NOW), bad);
    assert.deepEqual(verifyDelivery(SECRET, headers(good, ts), BODY.replace('12', '13'), NOW), bad);
    assert.deepEqual(verifyDelivery(SECRET, headers(good, ts + 1), BODY, NOW), bad, 'the timestamp is signed too');
    assert.deepEqual(verifyDelivery(SECRET, headers(good.slice(0, -2), ts), BODY, NOW), bad, 'too short');
    assert.deepEqual(verifyDelivery(SECRET, headers(good.replace('sha256=', 'sha1='), ts), BODY, NOW), bad);
    assert.deepEqual(verifyDelivery(SECRET, headers(`${good}00`, ts), BODY, NOW), bad, 'too long');
    assert.deepEqual(verifyDelivery(SECRET, { 'x-vast-timestamp': String(ts) }, BODY, NOW), { ok: false, reason: 'no signature' });
    assert.deepEqual(verifyDelivery(SECRET, headers(good, 'soon'), BODY, NOW), { ok: false, reason: 'no timestamp' });
    assert.deepEqual(verifyDelivery(SECRET, { 'x-vast-signature-256': [good, good], 'x-vast-timestamp': String(ts) }, BODY, NOW), {
      ok: false,
      reason: 'no signature',
    });
  });

  it('refuses an old timestamp (a replay) and one from the future, even when well signed', () => {
    const old = NOW - 301;
    assert.deepEqual(verifyDelivery(SECRET, headers(signed(SECRET, old, BODY), old), BODY, NOW, 300), { ok: false, reason: 'too old' });
    assert.equal(verifyDelivery(SECRET, headers(signed(SECRET, NOW - 300, BODY), NOW - 300), BODY, NOW, 300).ok, true, 'the edge is in');
    const ahead = NOW + 301;
    assert.deepEqual(verifyDelivery(SECRET, headers(signed(SECRET, ahead, BODY), ahead), BODY, NOW, 300), {
      ok: false,
      reason: 'from the future',
    });
  });
});
