/** The simulator's state: records, id counters, seeding, and the state file. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PERMISSION_CATEGORIES, type PermissionCategory, type Permissions } from '../../src/core/api/permissions';
import { balance } from './ledger';
import type { Account, ApiKeyRecord, Contract, InstanceState, Ms, StoreData } from './model';
import { overlayOf, type OverlayAddress } from './overlays';
import { seedTemplates } from './templates';

const FIRST_IDS: Record<string, number> = {
  account: 410_001,
  apikey: 3_001,
  sshkey: 21_001,
  topup: 880_001,
  contract: 31_000_001,
  template: 190_001,
  endpoint: 5_001,
  workergroup: 9_001,
  worker: 77_001,
  role: 301,
  member: 610_001,
  overlay: 7_001,
  priceincrease: 64_001,
  webhook: 1_101,
};

/** Team roles every account starts with. The owner role is not listed by roles-full. */
/** A role's permissions: each category unconstrained. */
function grant(categories: readonly PermissionCategory[]): Permissions {
  return { api: Object.fromEntries(categories.map((c) => [c, {}])) };
}

/** Every category an account's own routes need (the machine ones are for hosts). */
const ACCOUNT_CATEGORIES = (Object.keys(PERMISSION_CATEGORIES) as PermissionCategory[]).filter((c) => !c.startsWith('machine_'));

const SEED_ROLES: Array<{ name: string; permissions: Permissions }> = [
  { name: 'owner', permissions: grant(ACCOUNT_CATEGORIES) },
  { name: 'manager', permissions: grant(ACCOUNT_CATEGORIES.filter((c) => c !== 'user_write')) },
  { name: 'member', permissions: grant(['misc', 'user_read', 'instance_read', 'instance_write']) },
];

export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

function emptyData(seed: number, bootSeconds: number): StoreData {
  return {
    version: 1,
    seed,
    ids: { ...FIRST_IDS },
    bootSeconds,
    clockOffsetMs: 0,
    accounts: [],
    keys: [],
    sshKeys: [],
    topUps: [],
    contracts: [],
    instances: [],
    templates: [],
    volumes: [],
    endpoints: [],
    workerGroups: [],
    roles: [],
    members: [],
    secrets: [],
  };
}

export class Store {
  data: StoreData;
  private dirty = false;
  private saveTimer: NodeJS.Timeout | undefined;

  constructor(
    seed: number,
    bootSeconds: number,
    private readonly file: string | undefined,
    private readonly saveDelayMs = 200,
  ) {
    const loaded = file ? readState(file) : undefined;
    this.data = loaded ?? emptyData(seed, bootSeconds);
    if (!loaded) this.data.templates = seedTemplates(0);
    this.data.secrets ??= [];
    this.data.overlays ??= [];
    this.data.priceIncreases ??= [];
    this.data.reservations ??= [];
    this.data.webhooks ??= [];
    this.data.notificationPrefs ??= [];
  }

  get fresh(): boolean {
    return this.data.accounts.length === 0;
  }

  nextId(kind: string): number {
    const id = this.data.ids[kind] ?? FIRST_IDS[kind] ?? 1;
    this.data.ids[kind] = id + 1;
    return id;
  }

  /** Creates an account with its owner membership, roles, one full-access key and opening credit. */
  createAccount(o: { email?: string; credit: number; key?: string; now: Ms }): { account: Account; key: ApiKeyRecord } {
    const id = this.nextId('account');
    const email = o.email ?? `user${id}@example.test`;
    const username = email.split('@')[0] ?? `user${id}`;
    const account: Account = { id, email, username, fullname: null, createdAt: o.now };
    this.data.accounts.push(account);
    const key = this.addKey({ accountId: id, key: o.key ?? newSecret(), name: 'default', permissions: null, now: o.now });
    if (o.credit > 0) this.addCredit(id, o.credit, o.now, 'Opening credit');
    for (const role of SEED_ROLES)
      this.data.roles.push({ id: this.nextId('role'), accountId: id, name: role.name, permissions: role.permissions });
    this.data.members.push({ id, teamAccountId: id, username, email, fullname: null, roles: ['owner'] });
    this.changed();
    return { account, key };
  }

  /**
   * The account a simulator starts with, and a full-access key to it: made on a fresh store; on a
   * store loaded from a state file, the first account, where `key` (when given) must now work.
   */
  openingAccount(o: { email: string; credit: number; key?: string; now: Ms }): { accountId: number; apiKey: string } {
    if (this.fresh) {
      const created = this.createAccount(o);
      return { accountId: created.account.id, apiKey: created.key.key };
    }
    const first = this.data.accounts[0]!;
    const existing = o.key ? this.liveKey(o.key) : this.accountKeys(first.id).find((k) => k.permissions === null);
    if (existing) return { accountId: existing.accountId, apiKey: existing.key };
    return {
      accountId: first.id,
      apiKey: this.addKey({ accountId: first.id, key: o.key, name: 'restart', permissions: null, now: o.now }).key,
    };
  }

  /** The account's API keys that are live and not an instance's own. */
  accountKeys(accountId: number): ApiKeyRecord[] {
    return this.data.keys.filter((k) => k.accountId === accountId && k.deletedAt === null && k.instanceId === null);
  }

  addKey(o: {
    accountId: number;
    key?: string;
    name: string | null;
    permissions: Permissions | null;
    keyParams?: unknown;
    instanceId?: number;
    now: Ms;
  }): ApiKeyRecord {
    const record: ApiKeyRecord = {
      id: this.nextId('apikey'),
      accountId: o.accountId,
      key: o.key ?? newSecret(),
      name: o.name,
      permissions: o.permissions,
      keyParams: o.keyParams ?? null,
      instanceId: o.instanceId ?? null,
      createdAt: o.now,
      deletedAt: null,
    };
    this.data.keys.push(record);
    this.changed();
    return record;
  }

  addCredit(accountId: number, amount: number, now: Ms, description = 'Credit purchase'): void {
    this.data.topUps.push({ id: this.nextId('topup'), accountId, at: now, amount, service: 'stripe_payments', description });
    this.changed();
  }

  account(id: number): Account | undefined {
    return this.data.accounts.find((a) => a.id === id);
  }

  liveKey(secret: string): ApiKeyRecord | undefined {
    return this.data.keys.find((k) => k.key === secret && k.deletedAt === null);
  }

  instance(id: number): InstanceState | undefined {
    return this.data.instances.find((i) => i.id === id);
  }

  contract(id: number): Contract {
    const c = this.data.contracts.find((x) => x.id === id);
    if (!c) throw new Error(`no contract ${id}`);
    return c;
  }

  balance(accountId: number, now: Ms): number {
    return balance(this.data, accountId, now);
  }

  /**
   * Where an instance sits on its overlay network (read-only; for the container's network):
   * `{name, subnet: '10.77.0.0/24', address: '10.77.0.1', prefixLength, index, ...}`, or
   * undefined when it is in none. Addresses are given in join order and kept until it leaves.
   */
  overlayOf(instanceId: number): OverlayAddress | undefined {
    return overlayOf(this.data, instanceId);
  }

  /** Offer ids held by live instances: those offers show as rented. */
  rentedOfferIds(): Set<number> {
    return new Set(this.data.instances.map((i) => i.offerId));
  }

  /** Marks the state as changed; the state file is written shortly after (debounced). */
  changed(): void {
    if (!this.file) return;
    this.dirty = true;
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.flush();
    }, this.saveDelayMs);
    this.saveTimer.unref();
  }

  /** Writes the state file now if anything changed. */
  flush(): void {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    if (!this.file || !this.dirty) return;
    this.dirty = false;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data));
    renameSync(tmp, this.file);
  }
}

function readState(file: string): StoreData | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const data = JSON.parse(text) as StoreData;
  if (data.version !== 1) throw new Error(`${file}: unsupported state version ${String(data.version)}`);
  return data;
}
