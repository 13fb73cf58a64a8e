/**
 * Test controls, in process (`sim.control`) and over HTTP under `/__control/` (no key; real
 * clients never call it). `CONTROL_ROUTES` below is the HTTP side; test/marketplace/README.md
 * ("Control API") lists every route with its body and answer, and a unit test keeps the two equal.
 *
 * `corrupt` spoils how the instance lists (v0 and v1) show one instance, as a service with a bug
 * might: `fields` are put over its record (`{"ssh_port": "22"}`), or `record` replaces it whole
 * (`null`, a string). The instance itself, and showing it by id, are untouched.
 */
import { hasTwoFactor, setTwoFactor } from '../auth';
import { FaultError, type FaultRule, type FaultRuleInput } from '../faults';
import { withheldUserFields, withholdUserFields, type MoneyField } from './account';
import { lowerBids, outbid } from '../bids';
import { instanceRecord } from '../instanceRecord';
import { addListing } from '../listings';
import type { MirrorBehaviour } from '../mirror';
import { forceStatus, statusFields } from '../lifecycle';
import type { OverlayAddress } from '../overlays';
import { smiHardware, type GpuLie, type SmiHardware } from '../nvidiaSmi';
import { round } from '../random';
import { HttpError, fail, isObject, matchRoute, num, ok, type PathRoute, type Reply, type Sim } from '../router';
import { createNoticeControl, NOTICE_CONTROL, type NoticeControl } from './noticeControl';

export interface StateSummary {
  now: number;
  /** API requests received so far (control requests not counted). */
  requestCount: number;
  seed: number;
  boot_seconds: number;
  offers: number;
  rented_offers: number[];
  accounts: Array<{ id: number; email: string; credit: number; keys: number }>;
  instances: Array<{
    id: number;
    account_id: number;
    offer_id: number;
    actual_status: string | null;
    phase: string;
    label: string | null;
    dph_total: number;
  }>;
  volumes: number;
  templates: number;
  faults: FaultRule[];
}

/** Price increases, low credit and webhook deliveries are in noticeControl.ts. */
export interface MarketplaceControl extends NoticeControl {
  /** A new funded account with a full-access key. */
  addAccount(o?: { email?: string; credit?: number; key?: string }): { id: number; key: string };
  /** Two-factor authentication on the account (see auth.ts), and money fields left out of its user record. */
  setAccountQuirks(
    accountId: number,
    quirks: { twoFactor?: boolean; withhold?: MoneyField[] },
  ): { two_factor: boolean; withhold: MoneyField[] };
  /** Adds a credit top-up (it shows up as an invoice). */
  addCredit(accountId: number, amount: number): number;
  addFault(rule: FaultRuleInput): FaultRule;
  clearFaults(): void;
  faults(): FaultRule[];
  /** Forces `actual_status`: null, loading, running, stopped, rebooting, scheduling, exited, offline, unknown. */
  setInstanceStatus(id: number, status: string | null): void;
  /**
   * Outbids an interruptible instance (bids.ts): its machine's minimum bid rises to `minBid` (default a
   * quarter over its bid) and it stops as the service stops it; answers the new minimum.
   */
  outbid(id: number, minBid?: number): number;
  /**
   * The other renters' bids on the instance's machine fall (bids.ts): its minimum bid drops to
   * `minBid` (default the minimum its offer listed before any outbid), and every outbid instance on
   * that machine whose bid now reaches it boots again by itself; answers the new minimum and the
   * instances that resumed.
   */
  lowerBids(id: number, minBid?: number): { minBid: number; resumed: number[] };
  /** Boot time of instances created from now on. */
  setBootSeconds(seconds: number): void;
  /** Moves the simulator's clock forward (on top of any injected clock). */
  advanceClock(seconds: number): void;
  state(): StateSummary;
  /** An instance as `GET /api/v0/instances/{id}/` would show it, whoever owns it. */
  instance(id: number): Record<string, unknown> | null;
  /** Writes the state file now. */
  flush(): void;
  /** Spoils how the instance lists show one instance (see the header); `null` undoes it. */
  corruptListed(id: number, change: ListedCorruption | null): void;
  /** Undoes every `corruptListed`. */
  clearCorruption(): void;
  /**
   * Where a path inside an instance's container is on this machine (/root, /workspace and /tmp
   * are its store's); throws when the simulator runs no containers (neither `ssh` nor `onstart`).
   */
  containerPath(id: number, path: string): string;
  /** Whether instances are isolated containers here (root, unshare), not plain process groups. */
  containersIsolated(): boolean;
  /** Where an instance sits on its overlay network (`Store.overlayOf`), or null when it is in none. */
  overlayOf(id: number): OverlayAddress | null;
  /**
   * Makes the instance's nvidia-smi lie (nvidiaSmi.ts), or tell the truth again with `{}`; answers
   * what it now reports. A running container answers the lie from its next call.
   */
  setGpuLie(id: number, lie: GpuLie): SmiHardware;
  /** Shrinks (or grows) an instance's disk, for full-disk tests; answers the new size in bytes. */
  setDiskBytes(id: number, bytes: number): number;
  /** The account's cloud connections (its seeded one made on first use), with the folder behind each. */
  cloudConnections(accountId: number): CloudConnectionView[];
  /** Adds a cloud connection to an account, backed by a new empty folder. */
  addCloudConnection(accountId: number, o?: { name?: string; cloudType?: string }): CloudConnectionView;
  /** Lists a new rentable offer built like the catalogue's, `fields` over it (see listings.ts); answers it as a search pricing `allocatedStorage` GB shows it. */
  addOffer(fields: Record<string, unknown>, allocatedStorage?: number): Record<string, unknown>;
  /**
   * How the code-server release mirror (mirror.ts) behaves: `corrupt` serves its tarball with one
   * byte changed, `failAfterBytes` breaks the download after that many bytes. What `change` leaves
   * out is back to normal; answers the behaviour now.
   */
  setMirror(change: Partial<MirrorBehaviour>): MirrorBehaviour;
}

/** A cloud connection as the control API shows it: what the API lists, and its folder on this machine. */
export interface CloudConnectionView {
  id: number;
  cloud_type: string;
  name: string;
  path: string;
}

export interface ListedCorruption {
  fields?: Record<string, unknown>;
  /** Replaces the record whole when present (null included). */
  record?: unknown;
}

const corruptions = new WeakMap<Sim, Map<number, ListedCorruption>>();

/** An instance list's records as a buggy service would send them (see `corruptListed`). */
export function spoilListed(sim: Sim, rows: ReadonlyArray<Record<string, unknown>>): unknown[] {
  const spoiled = corruptions.get(sim);
  if (!spoiled?.size) return [...rows];
  return rows.map((row) => {
    const change = spoiled.get(row.id as number);
    if (!change) return row;
    if ('record' in change) return change.record;
    return { ...row, ...change.fields };
  });
}

export function createControl(sim: Sim): MarketplaceControl {
  const store = sim.store;
  return {
    ...createNoticeControl(sim),
    addAccount(o = {}) {
      const { account, key } = store.createAccount({ email: o.email, credit: o.credit ?? 250, key: o.key, now: sim.now() });
      return { id: account.id, key: key.key };
    },
    setAccountQuirks(accountId, quirks) {
      if (!store.account(accountId)) throw fail(404, 'not_found', `No account ${accountId}.`);
      if (quirks.twoFactor !== undefined) setTwoFactor(store, accountId, quirks.twoFactor);
      if (quirks.withhold !== undefined) withholdUserFields(store, accountId, quirks.withhold);
      return { two_factor: hasTwoFactor(store, accountId), withhold: withheldUserFields(store, accountId) };
    },
    addCredit(accountId, amount) {
      if (!store.account(accountId)) throw fail(404, 'not_found', `No account ${accountId}.`);
      if (!(amount > 0)) throw fail(400, 'invalid_args', 'amount must be positive.');
      store.addCredit(accountId, amount, sim.now());
      return round(store.balance(accountId, sim.now()), 6);
    },
    addFault: (rule) => sim.faults.add(rule),
    clearFaults: () => sim.faults.clear(),
    faults: () => sim.faults.list(),
    setInstanceStatus(id, status) {
      const found = sim.live(id);
      if (!found) throw fail(404, 'not_found', `Instance ${id} not found.`);
      try {
        forceStatus(found.inst, found.contract, status, sim.now(), sim.network);
      } catch (error) {
        throw fail(400, 'invalid_args', (error as Error).message);
      }
      store.changed();
    },
    outbid: (id, minBid) => outbid(sim, id, minBid).minBid,
    lowerBids: (id, minBid) => lowerBids(sim, id, minBid),
    overlayOf: (id) => store.overlayOf(id) ?? null,
    setBootSeconds(seconds) {
      if (!(seconds >= 0)) throw fail(400, 'invalid_args', 'seconds must be >= 0.');
      store.data.bootSeconds = seconds;
      store.changed();
    },
    advanceClock(seconds) {
      if (!(seconds >= 0)) throw fail(400, 'invalid_args', 'the clock only moves forward.');
      store.data.clockOffsetMs += seconds * 1000;
      sim.tick();
      store.changed();
    },
    state() {
      sim.tick();
      const now = sim.now();
      return {
        now: now / 1000,
        requestCount: sim.requestCount,
        seed: store.data.seed,
        boot_seconds: store.data.bootSeconds,
        offers: sim.offers.length,
        rented_offers: [...store.rentedOfferIds()],
        accounts: store.data.accounts.map((a) => ({
          id: a.id,
          email: a.email,
          credit: round(store.balance(a.id, now), 6),
          keys: store.accountKeys(a.id).length,
        })),
        instances: store.data.instances.map((i) => ({
          id: i.id,
          account_id: i.accountId,
          offer_id: i.offerId,
          actual_status: statusFields(i).actual_status,
          phase: i.phase,
          label: i.label,
          dph_total: round(i.gpuRate + i.diskRate, 6),
        })),
        volumes: store.data.volumes.length,
        templates: store.data.templates.length,
        faults: sim.faults.list(),
      };
    },
    instance(id) {
      const found = sim.live(id);
      const offer = found && sim.offerById.get(found.inst.offerId);
      return found && offer ? instanceRecord(found.inst, offer, store.data, sim.now()) : null;
    },
    flush: () => store.flush(),
    corruptListed(id, change) {
      let spoiled = corruptions.get(sim);
      if (!spoiled) corruptions.set(sim, (spoiled = new Map()));
      if (change) spoiled.set(id, change);
      else spoiled.delete(id);
    },
    clearCorruption: () => corruptions.get(sim)?.clear(),
    containerPath(id, path) {
      if (!sim.network.containers) throw fail(400, 'invalid_args', 'This simulator runs no containers (start it with ssh or onstart).');
      return sim.network.containers.hostPath(id, path);
    },
    containersIsolated: () => sim.network.containers?.isolated ?? false,
    setGpuLie(id, lie) {
      const inst = store.instance(id);
      const offer = inst && sim.offerById.get(inst.offerId);
      if (!inst || !offer) throw fail(404, 'not_found', `Instance ${id} not found.`);
      const told = Object.values(lie).some((v) => v !== undefined);
      if (told) inst.gpuLie = lie;
      else delete inst.gpuLie;
      store.changed();
      sim.network.containers?.refreshGpu(inst);
      return smiHardware(offer, inst.gpuLie);
    },
    setDiskBytes(id, bytes) {
      if (!store.instance(id)) throw fail(404, 'not_found', `Instance ${id} not found.`);
      if (!(bytes > 0)) throw fail(400, 'invalid_args', 'bytes must be positive.');
      if (!sim.network.containers?.isolated)
        throw fail(400, 'invalid_args', 'Disks are real only when instances are containers (root, unshare).');
      try {
        sim.network.containers.setDiskBytes(id, bytes);
      } catch (error) {
        throw fail(400, 'invalid_args', (error as Error).message);
      }
      return bytes;
    },
    cloudConnections(accountId) {
      if (!store.account(accountId)) throw fail(404, 'not_found', `No account ${accountId}.`);
      return sim.transfers.connectionsOf(accountId).map((c) => ({ id: c.id, cloud_type: c.cloud_type, name: c.name, path: c.folder }));
    },
    addCloudConnection(accountId, o = {}) {
      if (!store.account(accountId)) throw fail(404, 'not_found', `No account ${accountId}.`);
      sim.transfers.connectionsOf(accountId);
      const c = sim.transfers.addConnection(accountId, o);
      return { id: c.id, cloud_type: c.cloud_type, name: c.name, path: c.folder };
    },
    addOffer: (fields, allocatedStorage) => ({ ...addListing(sim, fields, allocatedStorage) }),
    setMirror(change) {
      try {
        return sim.mirror.set(change);
      } catch (error) {
        throw fail(400, 'invalid_args', (error as Error).message);
      }
    },
  };
}

function faultInputs(body: unknown): FaultRuleInput[] {
  const list = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.rules) ? body.rules : [body];
  return list.map((r) => {
    if (!isObject(r) || typeof r.kind !== 'string') throw fail(400, 'invalid_args', 'A fault rule needs a kind.');
    return r as unknown as FaultRuleInput;
  });
}

/** One control route: no key, no faults, not counted as an API request. */
export interface ControlRoute extends PathRoute {
  /** `body` is the parsed JSON (anything, not only an object); `b` is it when it is an object, else `{}`. */
  handler(control: MarketplaceControl, call: { params: Record<string, string>; body: unknown; b: Record<string, unknown> }): Reply;
}

/** Every control route (test/marketplace/README.md lists them under "Control API"). */
export const CONTROL_ROUTES: readonly ControlRoute[] = [
  {
    method: 'POST',
    path: '/__control/faults',
    handler: (control, { body }) => ok({ success: true, faults: faultInputs(body).map((r) => control.addFault(r)) }),
  },
  { method: 'GET', path: '/__control/faults', handler: (control) => ok({ faults: control.faults() }) },
  {
    method: 'DELETE',
    path: '/__control/faults',
    handler: (control) => {
      control.clearFaults();
      return ok({ success: true });
    },
  },
  {
    method: 'POST',
    path: '/__control/accounts',
    handler: (control, { b }) =>
      ok(
        control.addAccount({
          email: typeof b.email === 'string' ? b.email : undefined,
          credit: num(b.credit),
          key: typeof b.key === 'string' ? b.key : undefined,
        }),
      ),
  },
  {
    method: 'POST',
    path: '/__control/accounts/:id/quirks',
    handler: (control, { params, b }) => {
      const withhold =
        b.withhold === undefined
          ? undefined
          : Array.isArray(b.withhold) && b.withhold.every((f) => f === 'credit' || f === 'balance')
            ? (b.withhold as MoneyField[])
            : null;
      if (withhold === null) throw fail(400, 'invalid_args', 'withhold must be a list of "credit" and "balance".');
      return ok({
        success: true,
        ...control.setAccountQuirks(Number(params.id), {
          twoFactor: typeof b.two_factor === 'boolean' ? b.two_factor : undefined,
          withhold,
        }),
      });
    },
  },
  {
    method: 'POST',
    path: '/__control/accounts/:id/credit',
    handler: (control, { params, b }) => ok({ success: true, credit: control.addCredit(Number(params.id), num(b.amount) ?? NaN) }),
  },
  {
    method: 'POST',
    path: '/__control/instances/:id/status',
    handler: (control, { params, b }) => {
      if (!('status' in b)) throw fail(400, 'invalid_args', 'Give a status (null is allowed).');
      control.setInstanceStatus(Number(params.id), b.status === null ? null : String(b.status));
      return ok({ success: true, instance: control.instance(Number(params.id)) });
    },
  },
  {
    method: 'POST',
    path: '/__control/instances/:id/outbid',
    handler: (control, { params, b }) => {
      if (b.minBid !== undefined && num(b.minBid) === undefined) throw fail(400, 'invalid_args', 'minBid must be a number ($/hour).');
      const minBid = control.outbid(Number(params.id), num(b.minBid));
      return ok({ success: true, min_bid: minBid, instance: control.instance(Number(params.id)) });
    },
  },
  {
    method: 'POST',
    path: '/__control/instances/:id/bids-lowered',
    handler: (control, { params, b }) => {
      if (b.minBid !== undefined && num(b.minBid) === undefined) throw fail(400, 'invalid_args', 'minBid must be a number ($/hour).');
      const { minBid, resumed } = control.lowerBids(Number(params.id), num(b.minBid));
      return ok({ success: true, min_bid: minBid, resumed, instance: control.instance(Number(params.id)) });
    },
  },
  {
    method: 'POST',
    path: '/__control/boot',
    handler: (control, { b }) => {
      control.setBootSeconds(num(b.seconds) ?? NaN);
      return ok({ success: true, boot_seconds: num(b.seconds) });
    },
  },
  {
    method: 'POST',
    path: '/__control/clock',
    handler: (control, { b }) => {
      control.advanceClock(num(b.advance_seconds) ?? NaN);
      return ok({ success: true, now: control.state().now });
    },
  },
  { method: 'GET', path: '/__control/state', handler: (control) => ok(control.state()) },
  {
    method: 'GET',
    path: '/__control/accounts/:id/cloud',
    handler: (control, { params }) => ok({ connections: control.cloudConnections(Number(params.id)) }),
  },
  {
    method: 'POST',
    path: '/__control/accounts/:id/cloud',
    handler: (control, { params, b }) =>
      ok({
        success: true,
        connection: control.addCloudConnection(Number(params.id), {
          name: typeof b.name === 'string' ? b.name : undefined,
          cloudType: typeof b.cloud_type === 'string' ? b.cloud_type : undefined,
        }),
      }),
  },
  {
    method: 'GET',
    path: '/__control/instances/:id/overlay',
    handler: (control, { params }) => ok({ overlay: control.overlayOf(Number(params.id)) }),
  },
  {
    method: 'POST',
    path: '/__control/instances/:id/gpu',
    handler: (control, { params, b }) => {
      const { name, missing, ecc, p2p } = b;
      if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || /[\n\r,|]/.test(name)))
        throw fail(400, 'invalid_args', 'name must be a GPU name (no comma, bar or line break).');
      for (const [key, value] of [
        ['missing', missing],
        ['ecc', ecc],
      ] as const)
        if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0))
          throw fail(400, 'invalid_args', `${key} must be a whole number >= 0.`);
      if (p2p !== undefined && typeof p2p !== 'boolean') throw fail(400, 'invalid_args', 'p2p must be true or false.');
      const lie: GpuLie = {
        name: name as string | undefined,
        missing: (missing as number | undefined) || undefined,
        ecc: (ecc as number | undefined) || undefined,
        p2pOff: p2p === false ? true : undefined,
      };
      return ok({ success: true, nvidia_smi: control.setGpuLie(Number(params.id), lie) });
    },
  },
  {
    method: 'POST',
    path: '/__control/instances/:id/disk',
    handler: (control, { params, b }) => ok({ success: true, bytes: control.setDiskBytes(Number(params.id), num(b.bytes) ?? NaN) }),
  },
  {
    method: 'POST',
    path: '/__control/corrupt',
    handler: (control, { b }) => {
      const instanceId = num(b.instance_id);
      if (instanceId === undefined || !('fields' in b || 'record' in b))
        throw fail(400, 'invalid_args', 'Give instance_id and fields or record.');
      if ('fields' in b && !isObject(b.fields)) throw fail(400, 'invalid_args', 'fields must be an object.');
      control.corruptListed(instanceId, 'record' in b ? { record: b.record } : { fields: b.fields as Record<string, unknown> });
      return ok({ success: true });
    },
  },
  {
    method: 'POST',
    path: '/__control/offers',
    handler: (control, { b }) => {
      const { allocated_storage: storage, ...fields } = b;
      if (storage !== undefined && (typeof storage !== 'number' || !(storage > 0)))
        throw fail(400, 'invalid_args', 'allocated_storage must be a positive number of GB.');
      return ok({ success: true, offer: control.addOffer(fields, storage) });
    },
  },
  {
    method: 'POST',
    path: '/__control/mirror',
    handler: (control, { b }) => ok({ success: true, mirror: control.setMirror(b as Partial<MirrorBehaviour>) }),
  },
  {
    method: 'DELETE',
    path: '/__control/corrupt',
    handler: (control) => {
      control.clearCorruption();
      return ok({ success: true });
    },
  },
  ...NOTICE_CONTROL,
];

/** Serves `/__control/...`; anything else under it is a 404. */
export function handleControl(control: MarketplaceControl, method: string, path: string, body: unknown): Reply {
  const { match } = matchRoute(CONTROL_ROUTES, method, path);
  if (!match) return { status: 404, json: { success: false, error: 'not_found', msg: `No control route ${method} ${path}` } };
  try {
    return match.route.handler(control, { params: match.params, body, b: isObject(body) ? body : {} });
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, json: error.body };
    if (error instanceof FaultError) return { status: 400, json: { success: false, error: 'invalid_args', msg: error.message } };
    throw error;
  }
}
