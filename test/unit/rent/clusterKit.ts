import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { ApiError } from '../../../src/core/api/errors';
import type { CreateInstanceRequest } from '../../../src/core/api/instances';
import type { Offer } from '../../../src/core/api/offers';
import type { ClusterRentEnd } from '../../../src/core/rent/clusterEnd';
import type { BootResult, OverlayCreate, OverlaySummary } from '../../../src/core/rent/clusterPorts';
import { clusterRenter } from '../../../src/core/rent/clusterPorts';
import type { ClusterRentDeps } from '../../../src/core/rent/clusterRent';
import { RentJournal, type JournalStorage, type PendingRent } from '../../../src/core/rent/journal';
import type { RentPlan } from '../../../src/core/rent/plan';
import { Renter } from '../../../src/core/rent/renter';
import { priceableOffer } from '../../support/fixtures';
import { MemoryLogger } from '../../support/logger';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

/** What the fake service does with a create for an offer. */
export type CreateFault =
  /** Someone else rented it first: the service's documented "no_such_ask". */
  | 'taken'
  /** A clear refusal that names no offer, template or volume. */
  | 'refused'
  /** The instance is made, but the answer is lost (a gateway's 502). */
  | 'lostMade'
  /** The answer is lost and nothing was made. */
  | 'lostNotMade';

interface FakeInstance {
  id: number;
  label: string;
  machine_id: number | null;
  offerId: number;
  env: Record<string, string>;
}

const error = (kind: 'not_found' | 'bad_request' | 'server', status: number, serverMessage: string, offerId: number) =>
  new ApiError({ kind, action: `rent offer ${offerId}`, method: 'PUT', path: `/api/v0/asks/${offerId}/`, status, serverMessage });

/** The account as the service keeps it: its instances, and what each create does. */
export class FakeService {
  readonly instances: FakeInstance[] = [];
  readonly creates: Array<{ offerId: number; request: CreateInstanceRequest }> = [];
  readonly faults = new Map<number, CreateFault>();
  readonly destroyed: number[] = [];
  private nextId = 500;

  constructor(private readonly offers: readonly Offer[]) {}

  client(): GpuRentalClient {
    const instances = {
      list: async () => this.instances.map((i) => ({ id: i.id, label: i.label, machine_id: i.machine_id })),
      create: async (offerId: number, request: CreateInstanceRequest) => {
        this.creates.push({ offerId, request });
        const fault = this.faults.get(offerId);
        if (fault === 'taken') throw error('not_found', 404, `no_such_ask Instance type by id ${offerId} is not available`, offerId);
        if (fault === 'refused') throw error('bad_request', 400, 'the host refused the image', offerId);
        if (fault === 'lostNotMade') throw error('server', 502, 'Bad Gateway', offerId);
        const made = this.make(offerId, request);
        if (fault === 'lostMade') throw error('server', 502, 'Bad Gateway', offerId);
        return { instanceId: made.id };
      },
    };
    return { instances } as unknown as GpuRentalClient;
  }

  private make(offerId: number, request: CreateInstanceRequest): FakeInstance {
    const offer = this.offers.find((o) => o.id === offerId);
    const made = { id: this.nextId++, label: request.label ?? '', machine_id: offer?.machine_id ?? null, offerId, env: request.env ?? {} };
    this.instances.push(made);
    return made;
  }

  destroy(id: number): void {
    const i = this.instances.findIndex((x) => x.id === id);
    if (i >= 0) this.instances.splice(i, 1);
    this.destroyed.push(id);
  }
}

/** Journal storage as one window keeps it. */
class MemoryStorage implements JournalStorage {
  entries: PendingRent[] = [];
  private readonly keys = new Map<string, string>();
  read() {
    return this.entries;
  }
  async write(entries: readonly PendingRent[]) {
    this.entries = JSON.parse(JSON.stringify(entries)) as PendingRent[];
  }
  async storeKey(label: string, key: string) {
    this.keys.set(label, key);
  }
  async getKey(label: string) {
    return this.keys.get(label);
  }
  async deleteKey(label: string) {
    this.keys.delete(label);
  }
}

/** An offer of cluster machine `machine`: 8 GPUs of `gpu`, priced so sums are easy to check. */
export function node(id: number, machine: number, gpuPerHour: number, gpu = 'H100 SXM'): Offer {
  // 720 GB-months at $0.72 → $0.01/h per 10 GB of disk: a 100 GB disk bills $0.10/h.
  return priceableOffer({
    id,
    machine_id: machine,
    gpu_name: gpu,
    num_gpus: 8,
    dph_base: gpuPerHour,
    dph_total: gpuPerHour + 0.1,
    storage_cost: 0.72,
    disk_space: 500,
  });
}

export const PLAN: RentPlan = { image: 'pytorch/pytorch:latest', disk: 100, runtype: 'ssh_proxy', label: 'train', idleStopMinutes: 0 };

/** A cluster rent over the real renter and journal, a fake service, overlays and boot watcher, and a scripted user. */
export function clusterKit(offers: readonly Offer[], answers: readonly Answer[], over: Partial<ClusterRentDeps> = {}) {
  const service = new FakeService(offers);
  const storage = new MemoryStorage();
  let clock = 1_000_000;
  const journal = new RentJournal(storage, 'window-a', () => clock);
  const renter = new Renter({
    journal,
    createClient: () => service.client(),
    logger: new MemoryLogger(),
    windowMs: 1_500,
    lookDelaysMs: [0],
    // Each look moves the clock on, so the window for a lost answer runs out after a few looks.
    now: () => (clock += 1_000),
    sleep: async () => undefined,
  });
  const ask = scriptedAsk(answers);
  const overlays = {
    list: [] as OverlaySummary[],
    created: [] as Array<{ clusterId: number; name: string }>,
    deleted: [] as string[],
    createAnswer: undefined as OverlayCreate | undefined,
    /** The overlay exists after an unseen create. */
    existsAfterLoss: false,
  };
  const booted: number[] = [];
  const bootFails = new Set<number>();
  const spend: number[] = [];
  const deps: ClusterRentDeps = {
    ask,
    renter: clusterRenter(renter),
    overlays: {
      listOverlays: async () => overlays.list,
      createOverlay: async (clusterId, name) => {
        overlays.created.push({ clusterId, name });
        const answer = overlays.createAnswer ?? { kind: 'created', overlayId: 77 };
        if (answer.kind === 'created' || overlays.existsAfterLoss)
          overlays.list = [...overlays.list, { overlay_id: 77, name, cluster_id: clusterId }];
        return answer;
      },
      deleteOverlay: async (name) => {
        overlays.deleted.push(name);
        overlays.list = overlays.list.filter((o) => o.name !== name);
      },
    },
    boot: async (instanceId): Promise<BootResult> => {
      booted.push(instanceId);
      const made = service.instances.find((i) => i.id === instanceId);
      return made && bootFails.has(made.offerId) ? { kind: 'failed', reason: 'the image could not be pulled' } : { kind: 'running' };
    },
    destroy: async (instanceId) => {
      service.destroy(instanceId);
      return { kind: 'done', message: `destroyed #${instanceId}.` };
    },
    clusterOffers: async () => offers,
    allowsSpend: async (perHour) => (spend.push(perHour), true),
    unsettled: () => journal.entries(),
    credit: async () => 1_000,
    plan: async () => PLAN,
    idle: { enabled: false, minutes: 30, gpuThreshold: 5 },
    baseUrl: 'https://console.example.test',
    account: () => ({ baseUrl: 'https://console.example.test', profileId: 'default', key: 'k' }),
    ...over,
  };
  return { deps, ask, service, journal, overlays, booted, bootFails, spend, renter };
}

/**
 * The promise a user relies on: every instance the account has is a node the end names as rented,
 * every node named rented exists, and no rent is left unsettled in the journal.
 */
export function assertNoUnseenNode(end: ClusterRentEnd, service: FakeService, journal: RentJournal): void {
  const named = end.nodes.filter((n) => n.state === 'rented').map((n) => n.instanceId);
  assert.deepEqual(
    service.instances.map((i) => i.id).sort(),
    named.sort(),
    'the instances that exist are exactly the nodes the end says are rented',
  );
  assert.deepEqual(journal.entries(), [], 'no rent is left unsettled');
}
