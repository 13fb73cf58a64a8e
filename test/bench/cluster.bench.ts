// npm run bench (part): a cluster against one node, on the simulator with real containers, sshd and
// overlay networks (a network namespace per node).
//   1. rent: from calling the core flow to every node "running and reachable" (ssh `true` answers on
//      each): Rent Cluster's rentClusterFlow for 4 nodes of one cluster against Rent Offer's
//      rentOfferFlow and the window's boot wait for 1 node of the same model, with the same plan,
//      over the real client, renter, journal and instance poller (at the setting's default
//      interval), alternately, everything destroyed between rounds (target <= 1.2x);
//   2. upload: a 50 MB workspace in 400 files to 4 nodes as Run on Cluster sends it (each node's
//      look, then uploadToCluster: Upload Folder's core flow to rank 0, the other nodes copying from
//      rank 0 over the overlay) against Upload Folder's core flow to 1 node, alternately, each round
//      into a fresh folder (target <= 1.3x), with plain `rsync -a` to 1 and 4 nodes in parallel as
//      the control, and this machine's CPU busy share meanwhile: every node's sshd runs on this
//      machine too;
//   3. upload through the user's uplink: the same workspace, every connection from this machine to a
//      node's sshd going through a local relay that paces what is sent to the nodes with one token
//      bucket (UPLINK_MBIT, shared by all of them; test/bench/uplink.ts, in a process of its own as
//      a network is, not in the event loop the extension's code runs in), the copy between nodes
//      over the overlay not:
//      Upload Folder's flow to 1 node against Run on Cluster's upload to 4 (target <= 1.2x), with two
//      controls: the copy from node 0 only after its upload is done (no overlap), and 4 direct
//      uploads in parallel (Run on Cluster before the copy from node 0).
// Prints where the time of a rent goes (overlay, the creates, the boot wait, ssh).
// Needs root and an OpenSSH sshd (/usr/sbin/sshd, or GPU_RENTAL_SSHD); skipped otherwise.
import { spawn } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { SCALE } from '../../src/core/scale';
import { creditOf } from '../../src/core/account/funds';
import type { GpuRentalClient } from '../../src/core/api/client';
import { silentProgress } from '../../src/core/progress';
import type { Offer } from '../../src/core/api/offers';
import type { Instance } from '../../src/core/api/instances';
import { InstancePoller } from '../../src/core/instances/poller';
import { uploadToCluster } from '../../src/core/jobs/cluster/fanout';
import { nodeProbeScript } from '../../src/core/jobs/cluster/fanoutScripts';
import { clusterRunDeps } from '../../src/core/jobs/cluster/wiring';
import { JobMemory } from '../../src/core/jobs/memory';
import { sshEndpoint } from '../../src/core/instances/ssh';
import { clusterRenter } from '../../src/core/rent/clusterPorts';
import { nodeGroups } from '../../src/core/rent/clusterPick';
import { rentClusterFlow, type ClusterRentDeps } from '../../src/core/rent/clusterRent';
import { bootOf, clusterOffers, destroyNode, overlayPort } from '../../src/core/rent/clusterService';
import { RentJournal, type JournalStorage, type PendingRent } from '../../src/core/rent/journal';
import type { RentPlan } from '../../src/core/rent/plan';
import { rentOfferFlow, type RentOfferDeps } from '../../src/core/rent/rentOffer';
import { Renter, type RentAccount } from '../../src/core/rent/renter';
import { generateKey } from '../../src/core/ssh/localKeys';
import { runRemote, type SshTarget } from '../../src/core/ssh/remote';
import { rsyncRemoteShell } from '../../src/core/transfer/argv';
import { uploadedFiles } from '../../src/core/transfer/runner';
import { uploadFlow, type UploadFlowDeps } from '../../src/core/transfer/upload';
import { overlayNetAvailable } from '../marketplace/overlayNet';
import { shapedUplink } from './uplink';
import { clientFor, DEMO_KEY, eventually, MemoryLogger, sshBench, testSshOptions } from '../support';
import { scriptedAsk } from '../support/scriptedAsk';

const NODES = SCALE.clusterNodes;
const RENT_ROUNDS = 5;
const UPLOAD_ROUNDS = 5;
const FILES = 400;
const FILE_BYTES = 125_000;
/** gpuRental.pollIntervalSeconds' default: the window sees a boot end at this pace. */
const POLL_MS = 10_000;
/** Part 3: the user's uplink, shared by every connection to a node's sshd (what is sent; the replies are not paced). */
const UPLINK_MBIT = 100;
const UPLINK_ROUNDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
const sleep = (delay: number) => new Promise((r) => setTimeout(r, delay));

/** Bytes that do not compress, the same on every run (AES-CTR over zeros with a fixed key). */
function data(bytes: number): Buffer {
  return createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16, 0)).update(Buffer.alloc(bytes));
}

/** This machine's CPU time so far, busy and in all (jiffies, from /proc/stat). */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** The share of the CPU that was busy between two readings, in percent. */
const busyShare = (a: ReturnType<typeof cpuTimes>, b: ReturnType<typeof cpuTimes>) =>
  (100 * (b.busy - a.busy)) / Math.max(1, b.total - a.total);

interface Sample {
  ms: number;
  /** This machine's CPU busy share meanwhile, in percent. */
  busy: number;
}

/** The control: `rsync -a` over the same ssh, as a person would type it. */
function plainRsync(src: string, target: SshTarget, remoteDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('rsync', ['-a', '-e', rsyncRemoteShell(target), `${src}/`, `${target.alias}:${remoteDir}/`], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`plain rsync to #${target.instanceId} exited with ${code}`))));
  });
}

/** The rent journal as one window keeps it, in memory. */
class MemoryStorage implements JournalStorage {
  private entries: PendingRent[] = [];
  private readonly keys = new Map<string, string>();
  read() {
    return this.entries;
  }
  async write(entries: readonly PendingRent[]) {
    this.entries = [...entries];
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

/** One window's rent journal (in memory), renter and instance poller against the simulator, and the account rents go to. */
function windowParts(url: string, client: GpuRentalClient) {
  const logger = new MemoryLogger();
  const journal = new RentJournal(new MemoryStorage(), 'bench-window');
  const renter = new Renter({ journal, createClient: (baseUrl, key) => clientFor(baseUrl, key()).client, logger });
  const poller = new InstancePoller({
    fetch: (signal) => client.instances.listInOneRequest({ signal, retry: 'never' }),
    intervalMs: () => POLL_MS,
    logger,
  });
  poller.setEnabled(true);
  const account: RentAccount = { baseUrl: url, profileId: 'default', key: DEMO_KEY };
  return { journal, renter, poller, account };
}

type Parts = ReturnType<typeof windowParts>;

/** Runs `true` over ssh on `id` until it answers, with the poller's view of the instance (as Connect reads it). */
async function reach(parts: Parts, client: GpuRentalClient, keyPath: string, id: number): Promise<SshTarget> {
  const instance = parts.poller.snapshot?.instances.find((i) => i.id === id) ?? (await client.instances.show(id));
  const endpoint = sshEndpoint(instance);
  if (!endpoint) throw new Error(`#${id} runs but shows no ssh endpoint`);
  const target: SshTarget = {
    instanceId: id,
    alias: `root@${endpoint.host}`,
    args: [...testSshOptions(keyPath), '-p', String(endpoint.port)],
  };
  for (let tries = 0; ; tries++) {
    const answered = await runRemote(target, 'true', { timeoutMs: 10_000 }).catch(() => undefined);
    if (answered?.code === 0) return target;
    if (tries > 200) throw new Error(`ssh to #${id} never answered: ${answered?.stderr ?? 'timed out'}`);
    await sleep(50);
  }
}

sshBench('cluster', {}, async (sim, home) => {
  if (!overlayNetAvailable()) {
    console.log('cluster: skipped (no network namespaces here)');
    return;
  }
  const { client } = clientFor(sim.url, DEMO_KEY);
  const keyPath = join(home, 'key');
  await generateKey(keyPath, 'cluster-bench');
  await client.sshKeys.create((await readFile(`${keyPath}.pub`, 'utf8')).trim());
  const parts = windowParts(sim.url, client);
  const plan = (label: string): RentPlan => ({ image: 'ubuntu:22.04', disk: 8, runtype: 'ssh_proxy', label, idleStopMinutes: 0 });

  // A cluster with at least NODES machines of one model (the seeded catalogue has runs of 5 to 7).
  const all = await clusterOffers(() => client);
  const byCluster = new Map<number, Offer[]>();
  for (const o of all) if (typeof o.cluster_id === 'number') byCluster.set(o.cluster_id, [...(byCluster.get(o.cluster_id) ?? []), o]);
  const found = [...byCluster].flatMap(([clusterId, offers]) =>
    nodeGroups(offers)
      .filter((g) => g.offers.length >= NODES)
      .map((g) => ({ clusterId, offers, group: g })),
  )[0];
  if (!found) throw new Error(`no cluster of the seeded catalogue has ${NODES} machines of one model`);
  const single = found.group.offers[0]!;

  const clusterDeps = (steps: Array<[string, number]>): ClusterRentDeps => ({
    ask: scriptedAsk([{ confirm: true }]),
    renter: clusterRenter(parts.renter),
    overlays: overlayPort(() => client),
    boot: (id) => bootOf(parts.poller, id),
    destroy: (id) => destroyNode(() => client, parts.poller, id),
    clusterOffers: (id) => clusterOffers(() => client, id),
    allowsSpend: async () => true,
    unsettled: () => parts.journal.entries(),
    credit: async () => creditOf(await client.account.currentUser()),
    plan: async () => undefined,
    idle: { enabled: false, minutes: 30, gpuThreshold: 5 },
    baseUrl: sim.url,
    account: () => parts.account,
    progress: (text) => steps.push([text, performance.now()]),
  });
  const singleDeps = (): RentOfferDeps => ({
    ask: scriptedAsk([{ confirm: true }]),
    unsettled: () => parts.journal.entries(),
    credit: async () => creditOf(await client.account.currentUser()),
    priceStats: async () => undefined,
    wizard: async () => undefined,
    templateMode: async () => undefined,
    allowsSpend: async () => true,
    idle: { enabled: false, minutes: 30, gpuThreshold: 5 },
    baseUrl: sim.url,
    account: () => parts.account,
    offer: async () => single,
    bidSearch: () => false,
    rent: (...args) => parts.renter.rent(...args),
  });

  /** Rents NODES nodes; resolves with their ids, the overlay's name, and how long each step took. */
  const rentCluster = async (label: string) => {
    const steps: Array<[string, number]> = [];
    const t0 = performance.now();
    const end = await rentClusterFlow(clusterDeps(steps), {
      cluster: { clusterId: found.clusterId, offers: found.offers },
      startedFrom: single,
      count: NODES,
      plan: plan(label),
    });
    if (end?.kind !== 'complete') throw new Error(`the cluster rent ended ${end?.kind ?? 'cancelled'}: ${end?.notice.text}`);
    const ids = end.nodes.flatMap((n) => (n.state === 'rented' && n.instanceId !== undefined ? [n.instanceId] : []));
    const flowDone = performance.now();
    const targets = await Promise.all(ids.map((id) => reach(parts, client, keyPath, id)));
    const t1 = performance.now();
    const at = (prefix: string) => steps.find(([text]) => text.startsWith(prefix))?.[1] ?? NaN;
    const split = {
      overlay: at('Renting node 0') - t0,
      creates: at('Waiting for') - at('Renting node 0'),
      boot: flowDone - at('Waiting for'),
      ssh: t1 - flowDone,
    };
    return { ids, targets, network: end.network!.name, ms: t1 - t0, split };
  };
  const rentSingle = async (label: string) => {
    const t0 = performance.now();
    const end = await rentOfferFlow(singleDeps(), plan(label));
    if (end?.instanceId === undefined) throw new Error(`the rent ended without an instance: ${end?.notice.text}`);
    const rented = performance.now();
    const boot = await bootOf(parts.poller, end.instanceId);
    if (boot.kind !== 'running') throw new Error(`#${end.instanceId} did not boot: ${boot.reason}`);
    const booted = performance.now();
    const target = await reach(parts, client, keyPath, end.instanceId);
    const t1 = performance.now();
    return { id: end.instanceId, target, ms: t1 - t0, split: { rent: rented - t0, boot: booted - rented, ssh: t1 - booted } };
  };
  /** Destroys instances (and the overlay once they have left it); waits until the account shows none. */
  const clear = async (ids: readonly number[], network?: string) => {
    await Promise.all(ids.map((id) => client.instances.destroy(id)));
    await eventually(async () => (await client.instances.list()).length === 0, 'every instance destroyed', 30_000);
    if (network) await client.clusters.deleteOverlay({ name: network });
  };

  // Part 1: rent.
  const clusterMs: number[] = [];
  const singleMs: number[] = [];
  const splits: Array<Record<string, number>> = [];
  const singleSplits: Array<Record<string, number>> = [];
  for (let round = 0; round < RENT_ROUNDS; round++) {
    const one = async () => {
      const r = await rentSingle(`bench-one-${round}`);
      singleMs.push(r.ms);
      singleSplits.push(r.split);
      await clear([r.id]);
    };
    const four = async () => {
      const r = await rentCluster(`bench-four-${round}`);
      clusterMs.push(r.ms);
      splits.push(r.split);
      await clear(r.ids, r.network);
    };
    // Alternate which goes first, so neither always meets a warm or a cold simulator.
    if (round % 2 === 0) await one().then(four);
    else await four().then(one);
  }
  const c = median(clusterMs);
  const s = median(singleMs);
  const stepMedian = (key: string, of = splits) => median(of.map((x) => x[key]!)).toFixed(0);
  console.log(`cluster: rent to "running and reachable" on the simulator (poll every ${POLL_MS / 1000} s), median of ${RENT_ROUNDS}`);
  console.log(`  1 node (rentOfferFlow + boot wait + ssh):     ${s.toFixed(0)} ms  (${ms(singleMs)})`);
  console.log(
    `    of which: rent ${stepMedian('rent', singleSplits)} ms, boot wait ${stepMedian('boot', singleSplits)} ms, ssh ${stepMedian('ssh', singleSplits)} ms`,
  );
  console.log(`  ${NODES} nodes (rentClusterFlow + ssh to each):    ${c.toFixed(0)} ms  (${ms(clusterMs)})`);
  console.log(
    `    of which: overlay ${stepMedian('overlay')} ms, ${NODES} creates ${stepMedian('creates')} ms, boot wait ${stepMedian('boot')} ms, ssh ${stepMedian('ssh')} ms`,
  );
  console.log(`  ratio: ${(c / s).toFixed(2)}x (target <= 1.2x)`);

  // Part 2: upload, to a cluster rented once.
  const src = join(home, 'workspace');
  const bytes = data(FILES * FILE_BYTES);
  for (let i = 0; i < FILES; i++) {
    const dir = join(src, `part${String(i % 16).padStart(2, '0')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${String(i).padStart(3, '0')}.bin`), bytes.subarray(i * FILE_BYTES, (i + 1) * FILE_BYTES));
  }
  const cluster = await rentCluster('bench-upload');
  const uploadDeps = (target: SshTarget): UploadFlowDeps => ({
    ask: scriptedAsk([]),
    logger: new MemoryLogger(),
    pickLocalFolder: async () => src,
    sshTarget: async () => target,
    progress: silentProgress(),
    transferFolder: '/root',
    excludes: ['.git/', 'node_modules/', '__pycache__/', '.venv/'],
  });
  const EXCLUDES = ['.git/', 'node_modules/', '__pycache__/', '.venv/'];
  const instanceOf = async (id: number): Promise<Instance> =>
    parts.poller.snapshot?.instances.find((i) => i.id === id) ?? (await client.instances.show(id));
  /** Upload Folder's core flow to one node over `targets`, as Run on Cluster's upload port calls it; the folder on the node. */
  const uploadVia =
    (targets: readonly SshTarget[]) => async (instanceId: number, request: { localDir?: string; remoteDir?: string; quiet?: boolean }) => {
      const target = targets.find((t) => t.instanceId === instanceId)!;
      const outcome = await uploadFlow(uploadDeps(target), await instanceOf(instanceId), request);
      return outcome?.kind === 'uploaded' ? outcome.remoteDir : undefined;
    };
  /** Run on Cluster's ports as the window wires them (wiring.ts) over `targets`: with the copy from rank 0, or (fanout false) an upload to each node. */
  const runDepsVia = (targets: readonly SshTarget[], fanout = true, onlyAfter = false) =>
    clusterRunDeps({
      ask: scriptedAsk([]),
      memory: new JobMemory({ get: () => undefined, update: () => Promise.resolve() }),
      upload: uploadVia(targets),
      uploadDestination: (localDir) => localDir,
      remoteFolder: '',
      sshTarget: (instance) => Promise.resolve(targets.find((t) => t.instanceId === instance.id)!),
      jobs: { run: () => Promise.reject(new Error('no job in the bench')), stop: () => Promise.resolve(false) },
      baseUrl: sim.url,
      logger: new MemoryLogger(),
      ...(fanout
        ? {
            fanout: {
              files: (localDir: string) => uploadedFiles(localDir, EXCLUDES),
              ...(onlyAfter ? { earlyPullMs: 3_600_000, connectAfterMs: 3_600_000 } : {}),
            },
          }
        : {}),
    });
  const uploadOne = uploadVia(cluster.targets);
  const runDeps = runDepsVia(cluster.targets);
  /** How long each node's look took (Run on Cluster's address read, now made before the upload; not in the upload's time). */
  const lookMs: number[] = [];
  /** Run on Cluster's upload: each node's look (untimed: it replaces the address read that followed the upload), then uploadToCluster. */
  const sendToCluster = async (targets: readonly SshTarget[], remoteDir: string, timed: () => unknown, deps = runDeps, looks = lookMs) => {
    const nodes = await Promise.all(targets.map((t) => instanceOf(t.instanceId)));
    const l0 = performance.now();
    const probes = await Promise.allSettled(nodes.map((n) => deps.shell(n, nodeProbeScript())));
    looks.push(performance.now() - l0);
    await timed();
    const results = await uploadToCluster(deps, nodes, { localDir: src, remoteDir, quiet: true }, probes);
    if (results.some((r) => r.kind !== 'uploaded'))
      throw new Error(`the upload to the cluster did not complete: ${JSON.stringify(results)}`);
  };
  /**
   * Sends the workspace: to one node by uploadFlow, to several as Run on Cluster does, or (the
   * control) by plain `rsync -a` to each in parallel; the time and the CPU's busy share.
   */
  const send = async (how: 'core' | 'plain', targets: readonly SshTarget[], remoteDir: string): Promise<Sample> => {
    let cpu0 = cpuTimes();
    let t0 = performance.now();
    const restart = () => {
      cpu0 = cpuTimes();
      t0 = performance.now();
    };
    if (how === 'plain') await Promise.all(targets.map((target) => plainRsync(src, target, remoteDir)));
    else if (targets.length > 1) await sendToCluster(targets, remoteDir, restart);
    else if ((await uploadOne(targets[0]!.instanceId, { localDir: src, remoteDir, quiet: true })) === undefined)
      throw new Error(`the upload to #${targets[0]!.instanceId} did not complete`);
    const sample = { ms: performance.now() - t0, busy: busyShare(cpu0, cpuTimes()) };
    await Promise.all(targets.map((t) => runRemote(t, `rm -rf -- '${remoteDir}'`, { timeoutMs: 30_000 })));
    return sample;
  };
  const up = { core1: [] as Sample[], core4: [] as Sample[], plain1: [] as Sample[], plain4: [] as Sample[] };
  for (let round = 0; round < UPLOAD_ROUNDS; round++) {
    const runs = [
      async () => up.core1.push(await send('core', cluster.targets.slice(0, 1), `/root/core1-${round}`)),
      async () => up.core4.push(await send('core', cluster.targets, `/root/core4-${round}`)),
      async () => up.plain1.push(await send('plain', cluster.targets.slice(0, 1), `/root/plain1-${round}`)),
      async () => up.plain4.push(await send('plain', cluster.targets, `/root/plain4-${round}`)),
    ];
    // Rotate the order, so no kind always meets a warm or a cold cache.
    for (let k = 0; k < runs.length; k++) await runs[(k + round) % runs.length]!();
  }
  const totalMb = (FILES * FILE_BYTES) / 1e6;
  const line = (what: string, xs: Sample[], more = '') =>
    `  ${what.padEnd(38)} ${median(xs.map((x) => x.ms)).toFixed(0)} ms  (${ms(xs.map((x) => x.ms))}; CPU busy ${median(xs.map((x) => x.busy)).toFixed(0)}%${more})`;
  const ratio = (four: Sample[], one: Sample[]) => median(four.map((x) => x.ms)) / median(one.map((x) => x.ms));
  console.log(
    `cluster: upload of ${totalMb} MB in ${FILES} files over ssh, median of ${UPLOAD_ROUNDS} (CPU busy: this machine's, ${cpus().length} cores)`,
  );
  console.log(line('uploadFlow, 1 node:', up.core1));
  console.log(line(`Run on Cluster's upload, ${NODES} nodes:`, up.core4));
  console.log(line('plain rsync -a, 1 node:', up.plain1));
  console.log(line(`plain rsync -a, ${NODES} nodes in parallel:`, up.plain4));
  console.log(
    `  ratio: ${ratio(up.core4, up.core1).toFixed(2)}x (target <= 1.3x); plain rsync's: ${ratio(up.plain4, up.plain1).toFixed(2)}x`,
  );
  console.log(`  each node's look before Run on Cluster's upload (its address read): ${median(lookMs).toFixed(0)} ms (${ms(lookMs)})`);

  // Part 3: the same uploads through the user's uplink (the relay); the copy between nodes stays on the overlay.
  const uplink = await shapedUplink(UPLINK_MBIT);
  try {
    const relayed = await Promise.all(
      cluster.targets.map(async (t): Promise<SshTarget> => {
        const endpoint = sshEndpoint(await instanceOf(t.instanceId))!;
        const port = await uplink.relay(endpoint.host, endpoint.port);
        return { instanceId: t.instanceId, alias: 'root@127.0.0.1', args: [...testSshOptions(keyPath), '-p', String(port)] };
      }),
    );
    const uploadRelayed = uploadVia(relayed);
    const fanoutRelayed = runDepsVia(relayed);
    const directRelayed = runDepsVia(relayed, false);
    // The control for the overlap: the other nodes copy only once rank 0's upload is done.
    const afterRelayed = runDepsVia(relayed, true, true);
    const relayedLooks: number[] = [];
    interface UplinkSample extends Sample {
      /** Bytes sent through the uplink meanwhile. */
      sent: number;
    }
    /** One node by uploadFlow, Run on Cluster's upload, or (the control) an upload to each node at once, all through the uplink. */
    const sendUp = async (how: 'one' | 'cluster' | 'after' | 'direct', remoteDir: string): Promise<UplinkSample> => {
      let cpu0 = cpuTimes();
      let sent0 = await uplink.passed();
      let t0 = performance.now();
      const restart = async () => {
        cpu0 = cpuTimes();
        sent0 = await uplink.passed();
        t0 = performance.now();
      };
      const request = { localDir: src, remoteDir, quiet: true as const };
      if (how === 'cluster' || how === 'after')
        await sendToCluster(relayed, remoteDir, restart, how === 'cluster' ? fanoutRelayed : afterRelayed, relayedLooks);
      else if (how === 'direct') {
        const nodes = await Promise.all(relayed.map((t) => instanceOf(t.instanceId)));
        const results = await uploadToCluster(directRelayed, nodes, request);
        if (results.some((r) => r.kind !== 'uploaded'))
          throw new Error(`the direct uploads through the uplink did not complete: ${JSON.stringify(results)}`);
      } else if ((await uploadRelayed(relayed[0]!.instanceId, request)) === undefined)
        throw new Error(`the upload to #${relayed[0]!.instanceId} through the uplink did not complete`);
      const elapsed = performance.now() - t0;
      const sample = { ms: elapsed, busy: busyShare(cpu0, cpuTimes()), sent: (await uplink.passed()) - sent0 };
      const reached = how === 'one' ? cluster.targets.slice(0, 1) : cluster.targets;
      await Promise.all(reached.map((t) => runRemote(t, `rm -rf -- '${remoteDir}'`, { timeoutMs: 30_000 })));
      return sample;
    };
    const via = { one: [] as UplinkSample[], cluster: [] as UplinkSample[], after: [] as UplinkSample[], direct: [] as UplinkSample[] };
    for (let round = 0; round < UPLINK_ROUNDS; round++) {
      const runs = [
        async () => via.one.push(await sendUp('one', `/root/uplink1-${round}`)),
        async () => via.cluster.push(await sendUp('cluster', `/root/uplink4-${round}`)),
        async () => via.after.push(await sendUp('after', `/root/after4-${round}`)),
        async () => via.direct.push(await sendUp('direct', `/root/direct4-${round}`)),
      ];
      for (let k = 0; k < runs.length; k++) await runs[(k + round) % runs.length]!();
    }
    const med = (xs: UplinkSample[]) => median(xs.map((x) => x.ms));
    const upLine = (what: string, xs: UplinkSample[]) =>
      line(what, xs, `; ${(median(xs.map((x) => x.sent)) / 1e6).toFixed(1)} MB sent through the uplink`);
    console.log(
      `cluster: upload of ${totalMb} MB in ${FILES} files through a shared ${UPLINK_MBIT} Mbit/s uplink (a relay pacing what this machine sends to each node's sshd; the copy between nodes is not paced), median of ${UPLINK_ROUNDS}`,
    );
    console.log(upLine('uploadFlow, 1 node:', via.one));
    console.log(upLine(`Run on Cluster's upload, ${NODES} nodes:`, via.cluster));
    console.log(upLine(`  the copy only after the upload:`, via.after));
    console.log(upLine(`${NODES} direct uploads in parallel:`, via.direct));
    console.log(
      `  through a shared ${UPLINK_MBIT} Mbit/s uplink: 1 node ${med(via.one).toFixed(0)} ms, ${NODES} nodes (node 0, then over the overlay) ${med(via.cluster).toFixed(0)} ms = ${ratio(via.cluster, via.one).toFixed(2)}x (target <= 1.2x; the copy only after the upload: ${ratio(via.after, via.one).toFixed(2)}x); ${NODES} direct uploads ${med(via.direct).toFixed(0)} ms = ${ratio(via.direct, via.one).toFixed(2)}x`,
    );
    console.log(`  each node's look through the uplink (untimed): ${median(relayedLooks).toFixed(0)} ms (${ms(relayedLooks)})`);
  } finally {
    await uplink.close();
  }
  await clear(cluster.ids, cluster.network);
  parts.poller.dispose();
});
