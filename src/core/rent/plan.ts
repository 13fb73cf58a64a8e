import type { CreateInstanceRequest, VolumeAttachment } from '../api/instances';
import type { Offer } from '../api/offers';
import { gigabytesBox, type NumberBox } from '../numbers';
import { rentRuntype, type RentRuntype } from './launchMode';

/** Everything a rent needs besides the offer: what the wizard asks for, or what automation passes. */
export interface RentPlan {
  image?: string;
  template?: string;
  disk: number;
  /**
   * How to connect. With a template, undefined keeps the template's own launch mode (Jupyter, SSH
   * or its entrypoint); a value replaces it. Without a template, undefined is SSH via the proxy.
   */
  runtype?: RentRuntype;
  label: string;
  onstart?: string;
  /**
   * Minutes of idleness after which the instance stops itself (the watchdog added to its start-up
   * script); 0 turns it off for this rent; undefined uses the gpuRental.idleStop settings.
   */
  idleStopMinutes?: number;
  /** A volume to attach (an existing one on the offer's machine) or create there, and where to mount it. */
  volume?: VolumeAttachment;
  /**
   * Environment variables for this rent only, sent as the create body's `env` map. Never logged
   * nor kept (the rent journal stores no request); the confirmation shows their names only.
   */
  env?: Record<string, string>;
  /**
   * A bid in $/hour for the GPU part: the rent is interruptible (the create body's `price`), stopped
   * when someone bids more. Undefined rents on demand.
   */
  bid?: number;
}

/** The most disk a rent asks for when the offer does not say how much its machine has free. */
export const UNLISTED_DISK_MAX_GB = 10_000;

/** The rent's disk box: whole GB from 1 to what the offer's machine has free (see src/core/numbers.ts). */
export function rentDiskBox(offer: Pick<Offer, 'disk_space'>): NumberBox {
  const free = offer.disk_space;
  return gigabytesBox(typeof free === 'number' && Number.isFinite(free) ? free : UNLISTED_DISK_MAX_GB);
}

/** The create request a plan sends, with the start-up script it ends up with (see `rentOnstart`). */
export function rentRequest(plan: RentPlan, onstart: string | undefined): CreateInstanceRequest & { label: string } {
  return {
    image: plan.image,
    template_hash_id: plan.template,
    disk: plan.disk,
    // With a template, none unless the user chose one: a runtype sent replaces the template's mode.
    runtype: rentRuntype(plan),
    label: plan.label,
    onstart,
    volume_info: plan.volume,
    // Sent only when there is one: the create body's `env` map, which the service merges with a template's.
    ...(plan.env && Object.keys(plan.env).length > 0 ? { env: { ...plan.env } } : {}),
    ...(plan.bid !== undefined ? { price: plan.bid } : {}),
  };
}
