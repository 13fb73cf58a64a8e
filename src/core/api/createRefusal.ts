/**
 * What a refused create (`PUT /api/v0/asks/{id}/`) was refused for, read from the service's answer.
 * Kept apart from instances.ts so that the renter, which activation loads, reaches no schema.
 */
import type { ApiError } from './errors';
import type { CreateInstanceRequest } from './instances';

/**
 * What the service refused a create for, as far as its answer says. `offer`: the offer is gone
 * (taken or withdrawn); `template`, `volume`: the one the request named does not exist (or this
 * account may not use it). Undefined: anything else, an unclear "not found" included.
 */
export type CreateRefusal =
  | { kind: 'offer' }
  | { kind: 'template'; hash: string }
  /** `newVolume`: `volumeId` is the storage offer a new volume was to be made from. */
  | { kind: 'volume'; volumeId: number; newVolume: boolean };

const NO_SUCH_ASK = /no_such_ask/i;
/** The documented text of a gone offer: "no_such_ask Instance type by id N is not available", "… is no longer available". */
const OFFER_GONE = /\b(?:instance type|offer|ask)\b.*\b(?:not|no longer) available\b|\bno such (?:offer|ask)\b/i;
const MISSING = /not found|does ?n[o']t exist|\bno[_ ]such|\b(?:not|no longer) available\b|\bunknown\b|\bdeleted\b/i;

function namesId(text: string, id: number): boolean {
  return new RegExp(`(?<!\\d)${id}(?!\\d)`).test(text);
}

/**
 * Reads a create's refusal (see the service notes §5): a gone offer is 404 with `error`
 * `invalid_args` and a message with `no_such_ask`, or 410 `no_such_ask`. A missing template or
 * volume is told by the code (`no_such_template`, `no_such_volume`) or a message that names it,
 * and only counts when the request named one. The template and the volume are looked for first:
 * the service lists storage as asks too, so a `no_such_ask` may be about a new volume's storage
 * offer. A 404 whose body names none of them is not "the offer is gone": it stays a refusal, so
 * that Rent Best Match does not send the same request to every other offer.
 */
export function createRefusal(error: ApiError, offerId: number, request: CreateInstanceRequest): CreateRefusal | undefined {
  // Only the service's own answers; a request that never left (checkCreate, a network error) says nothing of this.
  if (error.status === undefined || (error.kind !== 'not_found' && error.kind !== 'bad_request')) return undefined;
  const code = error.code ?? '';
  const text = error.serverMessage ?? '';
  const hash = request.template_hash_id;
  if (hash && (/no_such_template/i.test(code) || (/template/i.test(text) && (MISSING.test(text) || /invalid template/i.test(text)))))
    return { kind: 'template', hash };
  const volume = request.volume_info;
  if (volume) {
    const newVolume = volume.create_new;
    if (/no_such_volume/i.test(code) || (/volume/i.test(text) && (MISSING.test(text) || /invalid volume/i.test(text))))
      return { kind: 'volume', volumeId: volume.volume_id, newVolume };
    if (newVolume && NO_SUCH_ASK.test(`${code} ${text}`) && namesId(text, volume.volume_id) && !namesId(text, offerId))
      return { kind: 'volume', volumeId: volume.volume_id, newVolume };
  }
  if (NO_SUCH_ASK.test(code) || NO_SUCH_ASK.test(text) || OFFER_GONE.test(text)) return { kind: 'offer' };
  // 410 is documented on this route only for an offer that is no longer available (with cancel_unavail).
  if (error.status === 410) return { kind: 'offer' };
  return undefined;
}
