/**
 * An account that already rents many instances (`instances` in startMarketplace's options,
 * `--instances N` on the command line), for benchmarks of the extension at scale: each instance is
 * rented as a rent is (openRental: its own offer, contract, key, address), at a moment in the last
 * hours, and the lifecycle's own rules bring it to where it is now (booting, running, stopped by
 * its renter). `clusters` of them (2 to 4 nodes each, on the catalogue's cluster runs) sit on
 * overlay networks named `seed-<k>`, as Rent Cluster leaves them. What was spent before now is
 * topped up, so the balance stays the opening credit. Reproducible from the seed and the clock.
 */
import { createOverlay, checkJoin, join } from './overlays';
import { advance, stop } from './lifecycle';
import { spent } from './ledger';
import type { Offer } from './catalogue';
import type { Ms } from './model';
import { Random, hash32 } from './random';
import { openRental } from './rental';
import type { Sim } from './router';

const LABELS = ['train', 'eval', 'sweep', 'notebook', 'inference', 'data-prep', null, null] as const;
const IMAGES = ['pytorch/pytorch:latest', 'ubuntu:22.04', 'vllm/vllm-openai:latest'] as const;
const HOUR = 3_600_000;

export interface SeedOptions {
  accountId: number;
  /** Instances in all, the clusters' nodes included. */
  instances: number;
  /** How many of them form clusters (overlay networks); at most what the catalogue's cluster runs allow. */
  clusters: number;
  now: Ms;
}

/** Rents `instances` offers for the account; throws when the catalogue has too few rentable offers. */
export function seedInstances(sim: Sim, o: SeedOptions): void {
  const { store } = sim;
  const account = store.account(o.accountId);
  if (!account || o.instances <= 0) return;
  const rng = new Random(hash32(`seed-instances:${store.data.seed}`));
  const rented = store.rentedOfferIds();
  const free = sim.offers.filter((offer) => offer.rentable && !rented.has(offer.id));
  const runs: Offer[][] = [];
  const taken = new Set<number>();
  const plan: Array<{ offer: Offer; overlay?: number; node?: number }> = [];
  for (const machines of clusterRuns(free)) {
    if (runs.length >= o.clusters) break;
    const nodes = machines.slice(0, Math.min(machines.length, rng.int(2, 4)));
    // The clusters' nodes count among the instances.
    if (plan.length + nodes.length > o.instances) break;
    const k = runs.push(machines) - 1;
    for (const [n, offer] of nodes.entries()) {
      plan.push({ offer, overlay: k, node: n });
      taken.add(offer.id);
    }
  }
  for (const offer of free) {
    if (plan.length >= o.instances) break;
    if (!taken.has(offer.id)) plan.push({ offer });
  }
  if (plan.length < o.instances)
    throw new Error(`seeding ${o.instances} instances needs as many rentable offers; the catalogue has ${free.length} (raise --offers)`);
  const overlays = runs.map((machines, k) =>
    createOverlay(store.data, {
      accountId: account.id,
      name: `seed-${k + 1}`,
      clusterId: machines[0]!.cluster_id!,
      id: store.nextId('overlay'),
      now: o.now - 13 * HOUR,
    }),
  );
  // Oldest first, so contract ids grow with time as the service hands them out.
  const ages = plan.map(() => (rng.chance(0.03) ? rng.float(0, store.data.bootSeconds * 1000) : rng.float(0.1, 12) * HOUR));
  const order = plan.map((_, i) => i).sort((a, b) => ages[b]! - ages[a]!);
  for (const i of order) {
    const { offer, overlay, node } = plan[i]!;
    const at = o.now - ages[i]!;
    const base = LABELS[rng.int(0, LABELS.length - 1)];
    const label = overlay !== undefined ? `seed-${overlay + 1}-node${node}` : base ? `${base}-${rng.int(1, 400)}` : null;
    const bid = overlay === undefined && rng.chance(0.1) ? Math.round(offer.min_bid * 1.2 * 1e6) / 1e6 : undefined;
    const { inst } = openRental(sim, {
      account,
      offer,
      now: at,
      bid,
      image: IMAGES[rng.int(0, IMAGES.length - 1)]!,
      onstart: null,
      env: [],
      args: [],
      runtype: 'ssh_proxy',
      label,
      diskGb: rng.pick([16, 32, 64, 100]),
      clientId: 'me',
      template: undefined,
      volume: undefined,
      stopped: false,
    });
    if (overlay !== undefined) {
      checkJoin(overlays[overlay]!, offer, `Offer ${offer.id}`);
      join(overlays[overlay]!, inst);
    }
    const contract = store.contract(inst.id);
    advance(inst, contract, o.now, sim.network);
    // About one in ten of those that ran was stopped by its renter since.
    if (inst.phase === 'running' && overlay === undefined && rng.chance(0.1))
      stop(inst, contract, inst.phaseSince + (o.now - inst.phaseSince) * rng.next(), 'Stopped by user request', sim.network);
  }
  const past = spent(store.data, account.id, o.now);
  if (past > 0) store.addCredit(account.id, Math.ceil(past), o.now, 'Credit purchase');
  store.changed();
}

/** The catalogue's cluster runs among `offers`: machines of one cluster, one offer each, at least two. */
function clusterRuns(offers: readonly Offer[]): Offer[][] {
  const byCluster = new Map<number, Map<number, Offer>>();
  for (const offer of offers) {
    if (offer.cluster_id === null) continue;
    const machines = byCluster.get(offer.cluster_id) ?? new Map<number, Offer>();
    if (!machines.has(offer.machine_id)) machines.set(offer.machine_id, offer);
    byCluster.set(offer.cluster_id, machines);
  }
  return [...byCluster.values()].map((m) => [...m.values()].sort((a, b) => a.machine_id - b.machine_id)).filter((m) => m.length >= 2);
}
