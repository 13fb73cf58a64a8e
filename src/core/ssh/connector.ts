import type { Instance } from '../api/instances';
import type { SshKey } from '../api/account';
import type { Logger } from '../log';
import { proxyEndpoint, sshEndpoint, type SshEndpoint } from '../instances/ssh';
import { hostAlias } from './config';
import { nodeAlias } from './nodeAlias';
import { keyFingerprintPart, type LocalKey } from './localKeys';
import { SshConfigNotWritable, type SshConfigManager } from './manager';
import { l10n } from '../l10n';

/** The account's SSH key calls the connector needs. */
export interface SshKeyCalls {
  list(): Promise<SshKey[]>;
  create(publicKey: string): Promise<SshKey>;
  listForInstance(instanceId: number): Promise<SshKey[]>;
  attach(instanceId: number, publicKey: string): Promise<void>;
}

export type ConnectVia = 'auto' | 'direct' | 'proxy';

/** What a connect needs to open the instance: its alias in the SSH config, and how ssh reaches it. */
export interface PreparedHost {
  alias: string;
  /** A cluster node's second name in the same entry (`gpu-rental-train-node1`), for a person in a terminal. */
  friendlyAlias?: string;
  endpoint: SshEndpoint;
  key: LocalKey;
  /** The per-instance file; `ssh -F <hostFile> <alias>` works even without the Include. */
  hostFile: string;
  /** The user's SSH config and whether its Include is in place (false: `includeLines` must be added by hand). */
  userConfig: string;
  includeInPlace: boolean;
  includeLines?: string;
}

export class NoSshAddress extends Error {
  constructor(readonly instanceId: number) {
    super(l10n.t('Instance #{0} has no SSH address yet. Wait until it is running, then connect again.', instanceId));
    this.name = 'NoSshAddress';
  }
}

export class NoSshKey extends Error {
  constructor() {
    super(l10n.t('No SSH key to connect with: none was found in ~/.ssh or the gpuRental.ssh.identityFile setting, and none was created.'));
    this.name = 'NoSshKey';
  }
}

/** Where to reach the instance: the direct address, the proxy, or (auto) the direct one when there is one. */
export function endpointFor(instance: Instance, via: ConnectVia): SshEndpoint | undefined {
  return (via === 'proxy' ? proxyEndpoint(instance) : undefined) ?? sshEndpoint(instance);
}

/**
 * Gets an instance ready for ssh: a local key (found, or made when the user agrees), that key on
 * the account and on the instance (an instance only carries the account keys it was created
 * with), and the instance's entry in the managed SSH config, rewritten at every connect because
 * addresses change after a stop and start. Private keys are never read; only paths are logged.
 */
export class SshConnector {
  /** Public keys known to be on the account, so a second connect does not ask again. */
  private readonly registered = new Set<string>();
  /** The key being offered and made now: connects at once (every node of a cluster) share one question. */
  private creating: Promise<LocalKey | undefined> | undefined;
  /** Registrations in flight, by key: connects at once add the key to the account once. */
  private readonly registering = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: {
      keys: () => SshKeyCalls;
      config: () => SshConfigManager;
      findKey: () => Promise<LocalKey | undefined>;
      /** Asks the user, then makes a key; undefined when declined. */
      createKey: () => Promise<LocalKey | undefined>;
      logger: Logger;
      /** Keeps aliases of different accounts apart. */
      profile?: () => string | undefined;
    },
  ) {}

  alias(instanceId: number): string {
    return hostAlias(instanceId, this.deps.profile?.());
  }

  async prepare(instance: Instance, via: ConnectVia = 'auto'): Promise<PreparedHost> {
    const endpoint = endpointFor(instance, via);
    if (!endpoint) throw new NoSshAddress(instance.id);
    const key = await this.localKey();
    if (!key) throw new NoSshKey();
    await this.ensureKeyOn(instance.id, key);

    const config = this.deps.config();
    const alias = this.alias(instance.id);
    const friendlyAlias = nodeAlias(instance.label, this.deps.profile?.());
    let includeInPlace = true;
    let includeLines: string | undefined;
    try {
      await config.writeHost({
        alias,
        hostName: endpoint.host,
        port: endpoint.port,
        identityFile: key.privateKeyPath,
        friendlyAlias,
        comment: instance.label
          ? l10n.t('GPU Rental instance #{0} "{1}", {2} address; rewritten at every connect', instance.id, instance.label, endpoint.via)
          : l10n.t('GPU Rental instance #{0}, {1} address; rewritten at every connect', instance.id, endpoint.via),
      });
    } catch (error) {
      if (!(error instanceof SshConfigNotWritable)) throw error;
      includeInPlace = false;
      includeLines = error.lines;
      this.deps.logger.warn(error.message);
    }
    const names = friendlyAlias ? `${alias} (also ${friendlyAlias})` : alias;
    this.deps.logger.info(`SSH entry ${names} -> ${endpoint.host}:${endpoint.port} (${endpoint.via}), key ${key.privateKeyPath}.`);
    return {
      alias,
      ...(friendlyAlias ? { friendlyAlias } : {}),
      endpoint,
      key,
      hostFile: config.hostFile(alias),
      userConfig: config.paths.userConfig,
      includeInPlace,
      includeLines,
    };
  }

  /** Adds the key to the account unless it is there already; remembers it either way. */
  private async register(calls: SshKeyCalls, key: LocalKey, wanted: string): Promise<void> {
    const onAccount = (await calls.list()).some((k) => keyFingerprintPart(k.public_key) === wanted);
    if (!onAccount) {
      await calls.create(key.publicKey);
      this.deps.logger.info(`Registered the public key of ${key.privateKeyPath} on the account.`);
    }
    this.registered.add(wanted);
  }

  /** Removes a destroyed instance's entry and known hosts. */
  async forget(instanceId: number): Promise<void> {
    await this.deps.config().removeHost(this.alias(instanceId));
  }

  /** The key found, or the one the user agrees to make; concurrent callers wait for the same question. */
  private async localKey(): Promise<LocalKey | undefined> {
    const found = await this.deps.findKey();
    if (found) return found;
    this.creating ??= this.deps.createKey().finally(() => (this.creating = undefined));
    return this.creating;
  }

  /** Registers the key on the account once, and attaches it to the instance when the instance predates it. */
  private async ensureKeyOn(instanceId: number, key: LocalKey): Promise<void> {
    const wanted = keyFingerprintPart(key.publicKey);
    const calls = this.deps.keys();
    if (!this.registered.has(wanted)) {
      let registering = this.registering.get(wanted);
      if (!registering) {
        registering = this.register(calls, key, wanted).finally(() => this.registering.delete(wanted));
        this.registering.set(wanted, registering);
      }
      await registering;
    }
    const onInstance = (await calls.listForInstance(instanceId)).some((k) => keyFingerprintPart(k.public_key) === wanted);
    if (!onInstance) {
      await calls.attach(instanceId, key.publicKey);
      this.deps.logger.info(
        `Attached the public key of ${key.privateKeyPath} to instance #${instanceId}, which was created before it was registered.`,
      );
    }
  }
}
