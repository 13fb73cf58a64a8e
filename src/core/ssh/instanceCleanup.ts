import type { Instance } from '../api/instances';
import { instancePhase } from '../instances/phase';
import type { Logger } from '../log';
import type { SshConnector } from './connector';
import type { PortForwards } from './forward';

export interface InstanceCleanupDeps {
  readonly forwards: Pick<PortForwards, 'stopInstance'>;
  readonly connector: Pick<SshConnector, 'alias' | 'forget'>;
  /** Removes an alias from the Remote-SSH extensions' remotePlatform settings. */
  readonly forgetRemotePlatform: (alias: string) => Promise<void>;
  readonly logger: Logger;
}

/**
 * What this machine keeps for an instance goes with it: a destroyed instance loses its SSH entry,
 * its Remote-SSH platform entry and its port forwards; a stopped one its forwards.
 */
export class InstanceCleanup {
  /** Instance ids in the last list, to notice those destroyed elsewhere. */
  private seen = new Set<number>();

  constructor(private readonly deps: InstanceCleanupDeps) {}

  /** A destroyed instance's SSH entry and Remote-SSH platform entry go with it. */
  async forgetInstance(id: number): Promise<void> {
    const { forwards, connector, logger } = this.deps;
    forwards.stopInstance(id);
    const alias = connector.alias(id);
    await connector.forget(id).catch((error: unknown) => logger.warn(`Could not remove the SSH entry ${alias}: ${String(error)}`));
    await this.deps
      .forgetRemotePlatform(alias)
      .catch((error: unknown) => logger.warn(`Could not remove ${alias} from remotePlatform: ${String(error)}`));
  }

  /** Instances seen before and gone now (destroyed elsewhere too) lose their SSH entries; stopped ones their forwards. */
  followInstances(instances: readonly Instance[]): void {
    const now = new Set(instances.map((i) => i.id));
    for (const id of this.seen) if (!now.has(id)) void this.forgetInstance(id);
    this.seen = now;
    for (const i of instances) if (instancePhase(i) !== 'running') this.deps.forwards.stopInstance(i.id);
  }

  /** Another key may be another account: only ids seen under this one count as destroyed when they vanish. */
  forgetSeen(): void {
    this.seen.clear();
  }
}
