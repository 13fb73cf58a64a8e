/**
 * What the cluster simulator suites share (runSim, fanoutSim, preflightAllReduceSim): why they
 * cannot run here, the offers of one seeded cluster, nodes rented into an overlay through the
 * simulator's API, each a container with its own sshd and eth0, reached over ssh, and the upload
 * port Run on Cluster is wired with. Uses mocha's hooks through containerSuite: only test files
 * import it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { joinOverlayEnv } from '../../src/core/api/instanceRequests';
import type { Instance } from '../../src/core/api/instances';
import { clusterFilter } from '../../src/core/api/offerQuery';
import type { Offer } from '../../src/core/api/offers';
import { instancePhase } from '../../src/core/instances/phase';
import type { UploadRequest } from '../../src/core/jobs/run';
import type { Logger } from '../../src/core/log';
import { silentProgress } from '../../src/core/progress';
import type { SshTarget } from '../../src/core/ssh/remote';
import { uploadFlow } from '../../src/core/transfer/upload';
import { overlayNetAvailable } from '../marketplace/overlayNet';
import { sshdAvailable } from '../marketplace/sshd';
import type { ContainerSuite } from './containerSuite';
import { scriptedAsk } from './scriptedAsk';

/** A node's PATH as its ssh session has it: torchrun and python3 there must import torch. */
export const NODE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Why nodes of one overlay cannot run here (and, with `needs`, torch on them), or undefined. */
export function whyNoCluster(needs?: 'torchrun' | 'torch'): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: nodes share loopback';
  if (!overlayNetAvailable()) return 'no network namespaces here (ip, nsenter, unshare, or the kernel)';
  if (!sshdAvailable()) return 'no sshd (apt-get install openssh-server)';
  if (!needs) return undefined;
  const [command, args] = needs === 'torchrun' ? ['torchrun', ['--help']] : ['python3', ['-c', 'import torch.distributed']];
  const found = spawnSync(command, args, { stdio: 'ignore', timeout: 60_000, env: { ...process.env, PATH: NODE_PATH } });
  if (found.status === 0) return undefined;
  return needs === 'torchrun'
    ? 'no torchrun with torch on the nodes (apt-get install python3-torch)'
    : 'no python3 with torch on the nodes (apt-get install python3-torch)';
}

/** Skips the suite, saying why, when `whyNoCluster` finds a reason. */
export function skipWithoutCluster(needs?: 'torchrun' | 'torch'): void {
  before(function () {
    const skipped = whyNoCluster(needs);
    if (skipped) {
      console.log(`    (skipped: ${skipped})`);
      this.skip();
    }
  });
}

/** `n` offers of one cluster on distinct machines; `oneGpu`: one GPU each, of one model. */
export function clusterOffers(offers: readonly Offer[], n: number, o: { oneGpu?: boolean } = {}): Offer[] {
  const groups = new Map<string, Offer[]>();
  for (const offer of offers) {
    if (typeof offer.cluster_id !== 'number' || (o.oneGpu && offer.num_gpus !== 1)) continue;
    const key = o.oneGpu ? `${offer.cluster_id}/${offer.gpu_name}` : String(offer.cluster_id);
    const list = groups.get(key) ?? [];
    if (!list.some((x) => x.machine_id === offer.machine_id)) list.push(offer);
    groups.set(key, list);
  }
  const found = [...groups.values()].find((list) => list.length >= n);
  assert.ok(found, `the seeded catalogue has a cluster with ${n} ${o.oneGpu ? 'one-GPU machines of one model' : 'machines'}`);
  return found.slice(0, n);
}

/** Nodes of a suite's simulator: rented into overlays, reached over ssh, destroyed after. */
export interface SimCluster {
  /** The instances rented so far, by id. */
  readonly rented: number[];
  /** How ssh reaches a node (found once; the key is the suite's). */
  sshTarget(instance: Pick<Instance, 'id'>): Promise<SshTarget>;
  /**
   * Rents one node per image of one cluster into the overlay `name` and waits until each runs and
   * answers ssh; the nodes in rank order.
   */
  rent(name: string, images: readonly string[], o?: { oneGpu?: boolean }): Promise<Instance[]>;
  /** Destroys every node rented so far. */
  destroyAll(): Promise<void>;
}

export function simCluster(kit: ContainerSuite): SimCluster {
  const rented: number[] = [];
  const targets = new Map<number, SshTarget>();
  const sshTarget = async (instance: Pick<Instance, 'id'>): Promise<SshTarget> => {
    const known = targets.get(instance.id);
    if (known) return known;
    const reached = await kit.reach(instance.id);
    const target: SshTarget = { instanceId: instance.id, alias: reached.alias, args: reached.args };
    targets.set(instance.id, target);
    return target;
  };
  return {
    rented,
    sshTarget,
    async rent(name, images, o = {}) {
      const offers = await kit.client.offers.search({
        query: { filters: { cluster_id: clusterFilter(), rentable: { eq: true } }, order: [], type: 'on-demand' },
        limit: 1000,
      });
      const picked = clusterOffers(offers, images.length, o);
      await kit.client.clusters.createOverlay({ clusterId: picked[0]!.cluster_id!, name });
      const join = joinOverlayEnv(name);
      assert.ok(join.ok);
      const ids: number[] = [];
      for (const [at, offer] of picked.entries())
        ids.push((await kit.client.instances.create(offer.id, { image: images[at]!, disk: 8, env: join.env })).instanceId);
      rented.push(...ids);
      await Promise.all(ids.map((id) => sshTarget({ id })));
      const listed = await kit.client.instances.list();
      const nodes = ids.map((id) => listed.find((i) => i.id === id));
      assert.ok(
        nodes.every((i) => i !== undefined && instancePhase(i) === 'running'),
        'every node runs',
      );
      return nodes as Instance[];
    },
    async destroyAll() {
      await Promise.allSettled(rented.splice(0).map((id) => kit.client.instances.destroy(id)));
      targets.clear();
    },
  };
}

/**
 * Run on Cluster's `upload` port as the window wires it: Upload Folder's own flow to a listed node,
 * into /root, with no question asked. Resolves the remote folder, or undefined when nothing went.
 */
export function clusterUpload(o: {
  listed: () => readonly Instance[] | undefined;
  sshTarget: (instance: Pick<Instance, 'id'>) => Promise<SshTarget>;
  logger: Logger;
  excludes: string[];
}): (instanceId: number, request: UploadRequest) => Promise<string | undefined> {
  return async (instanceId, request) => {
    const instance = o.listed()?.find((i) => i.id === instanceId);
    assert.ok(instance, `#${instanceId} is listed`);
    const outcome = await uploadFlow(
      {
        ask: scriptedAsk([]),
        logger: o.logger,
        pickLocalFolder: () => Promise.resolve(undefined),
        sshTarget: o.sshTarget,
        progress: silentProgress(),
        transferFolder: '/root',
        excludes: o.excludes,
      },
      instance,
      request,
    );
    return outcome?.kind === 'uploaded' ? outcome.remoteDir : undefined;
  };
}
