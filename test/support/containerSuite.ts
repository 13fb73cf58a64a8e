/**
 * The setup of a unit suite that works inside the simulator's instances as isolated containers.
 * Uses mocha's hooks, like suite.ts: only test files import it.
 */
import { join } from 'node:path';
import type { GpuRentalClient } from '../../src/core/api/client';
import { generateKey } from '../../src/core/ssh/localKeys';
import { clientFor, rentableOffers } from './client';
import { containersIsolated } from './container';
import { DEMO_KEY } from './keys';
import type { MarketplaceOptions } from './simulator';
import { reachableInstance } from './sshTarget';
import { simulatorForSuite, tempDirForSuite, type SuiteSimulator } from './suite';

/** A running instance of a container suite and how ssh reaches it. */
export interface ContainerInstance {
  readonly id: number;
  readonly target: Awaited<ReturnType<typeof reachableInstance>>;
}

/** What `containerSuite` gives a suite; `client` and `keyPath` exist only inside its tests and hooks. */
export interface ContainerSuite {
  readonly sim: SuiteSimulator;
  /** The suite's temporary folder on this machine (the key is in it). */
  readonly home: () => string;
  /** The demo account's client. */
  readonly client: GpuRentalClient;
  /** The private key registered on the demo account, for scp, rsync or ssh of a test's own. */
  readonly keyPath: string;
  /** Rents one instance (ubuntu:22.04, 8 GB unless told) and waits until ssh reaches it. */
  rent(options?: { image?: string; disk?: number; env?: Record<string, string> }): Promise<ContainerInstance>;
  /** Waits until instance `id` runs again (after a start) and ssh reaches it. */
  reach(id: number): Promise<ContainerInstance['target']>;
}

/**
 * A simulator with sshd (and `options`) for the suite, and a new SSH key, named `name`, registered
 * on the demo account before the tests. Skips the suite, saying why, when its instances would not be
 * isolated containers: tests that kill processes or write in /root must not reach this machine's.
 */
export function containerSuite(name: string, options: MarketplaceOptions = {}): ContainerSuite {
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2, ...options });
  const home = tempDirForSuite(`gpu-rental-${name}-`);
  let client: GpuRentalClient | undefined;
  let keyPath: string | undefined;

  before(async function () {
    const c = containersIsolated(sim);
    if (!c.isolated) {
      console.log(`    (skipped: ${c.reason})`);
      this.skip();
    }
    ({ client } = clientFor(sim.url, DEMO_KEY));
    const key = await generateKey(join(home(), 'key'), name);
    keyPath = key.privateKeyPath;
    await client.sshKeys.create(key.publicKey);
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the container suite is ready only inside its tests and hooks');
    return value;
  };
  const reach = (id: number) => reachableInstance(ready(client), id, ready(keyPath));
  return {
    sim,
    home,
    get client() {
      return ready(client);
    },
    get keyPath() {
      return ready(keyPath);
    },
    reach,
    async rent({ image = 'ubuntu:22.04', disk = 8, env } = {}) {
      const [offer] = await rentableOffers(ready(client));
      const { instanceId } = await ready(client).instances.create(offer!.id, { image, disk, ...(env ? { env } : {}) });
      return { id: instanceId, target: await reach(instanceId) };
    },
  };
}
