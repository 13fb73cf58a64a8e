import { hostname } from 'node:os';
import * as vscode from 'vscode';
import type { GpuRentalClient } from '../core/api/client';
import type { Instance } from '../core/api/instances';
import { API_KEY_ENV, CONTEXT, SETTINGS, VIEWS } from '../core/ids';
import type { Logger } from '../core/log';
import { Session, type ClientFactory, type SessionState } from '../core/session/session';
import { StoredState } from '../core/state/storedState';
import { DEFAULT_PROFILE, DEFAULT_PROFILE_ID, keySlot, serviceLabel, sshProfile, type Profile } from '../core/session/profiles';
import { parseHostAlias } from '../core/ssh/config';
import { CostTracker } from '../core/billing/costs';
import { InstancePoller } from '../core/instances/poller';
import { Renter } from '../core/rent/renter';
import { RentJournal } from '../core/rent/journal';
import { PendingRents, journalStorage } from './pendingRents';
import { SshConnector } from '../core/ssh/connector';
import { PortForwards } from '../core/ssh/forward';
import { findLocalKey, generateKey, newKeyPath } from '../core/ssh/localKeys';
import { SshConfigManager, sshPaths } from '../core/ssh/manager';
import { instancePhase } from '../core/instances/phase';
import { forgetRemotePlatform, remoteSshConfigFile, vscodeHandoff, type RemoteHandoff } from './remote';
import { REMOTE_SSH_EXTENSIONS } from '../core/ssh/remoteSsh';
import { AccountStatus } from './accountStatus';
import { SpendGuard } from './spendGuard';
import { IdleGuard, windowAlias } from './idleGuard';
import { Profiles } from './profiles';
import { BootStatus } from './bootStatus';
import { modalPrompts, type Prompts } from './prompts';
import { config } from './config';
import { channelLogger } from './log';
import { showApiError, type ShowError } from './commands/errors';
import { VsCodeDispatcher } from './net/dispatcher';
import { SecretKeyStore } from './secrets';
import { InstancesView } from './views/instancesView';
import { OffersView } from './views/offersView';
import { AccountView } from './views/account/accountView';

const SIGNED_OUT_KEY = 'gpuRental.signedOut';

/**
 * The client and its zod schemas, evaluated on the first request rather than at activation:
 * esbuild turns a require() into a module that initialises when first called.
 */
function loadClient(): { GpuRentalClient: typeof GpuRentalClient } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../core/api/client') as { GpuRentalClient: typeof GpuRentalClient };
}
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Every long-lived object of the extension, built once in `activate` and handed to the command
 * modules. Nothing here talks to the network until a view or command asks.
 */
export class Services implements vscode.Disposable {
  readonly log: vscode.LogOutputChannel;
  readonly logger: Logger;
  /** Every value kept in global state, typed and checked. */
  readonly state: StoredState;
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly boots: BootStatus;
  readonly costs: CostTracker;
  readonly instancesView: InstancesView;
  /** Replaced by integration tests to answer confirmations. */
  prompts: Prompts = modalPrompts;
  readonly offersView: OffersView;
  readonly accountView: AccountView;
  readonly accountStatus: AccountStatus;
  readonly spend: SpendGuard;
  readonly idle: IdleGuard;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly keys: SecretKeyStore;
  readonly profiles: Profiles;
  /** Makes a client for a base URL and key; the session's, and short-lived ones for other profiles. */
  readonly createClient: ClientFactory;

  readonly renter: Renter;
  /** Unsettled rents in the status bar, and their outcomes once known. */
  readonly pendingRents: PendingRents;
  readonly connector: SshConnector;
  /** Shows an error that escaped a command, with the buttons that fix it. */
  readonly showError: ShowError;
  readonly forwards = new PortForwards();
  /** Instance ids in the last list, to notice those destroyed elsewhere. */
  private seen = new Set<number>();
  /** A template the next rent flow starts with (set by Rent With Template). */
  rentTemplate: string | undefined;
  /** Replaced by integration tests to observe the Remote-SSH handoff. */
  handoff: RemoteHandoff = vscodeHandoff;

  constructor(readonly context: vscode.ExtensionContext) {
    this.log = this.own(vscode.window.createOutputChannel('GPU Rental', { log: true }));
    this.logger = channelLogger(this.log);
    this.state = new StoredState(context.globalState, this.logger);
    const dispatcher = this.own(new VsCodeDispatcher(context.asAbsolutePath('dist')));
    const keys = (this.keys = this.own(new SecretKeyStore(context.secrets)));
    const userAgent = `gpu-rental-vscode/${String(context.extension.packageJSON.version)} vscode/${vscode.version}`;
    this.createClient = (baseUrl, getApiKey) => {
      const { GpuRentalClient: Client } = loadClient();
      return new Client({ dispatcher, baseUrl, getApiKey, logger: this.logger, timeoutMs: REQUEST_TIMEOUT_MS, userAgent });
    };
    this.profiles = this.own(new Profiles(this.state));
    this.showError = (error) =>
      showApiError({ logger: this.logger, log: this.log, session: this.session, profileCount: () => this.profiles.list().length }, error);
    const profile = this.initialProfile();
    // Written before a rent is sent, settled when its outcome is known; shared by every window.
    const journal = this.own(
      new RentJournal(journalStorage(this.state, context.secrets), `${vscode.env.sessionId}:${Math.random().toString(16).slice(2, 10)}`),
    );
    this.session = this.own(
      new Session(this.profiles.baseUrl(profile), {
        keys,
        logger: this.logger,
        createClient: this.createClient,
        profileId: profile.id,
        frozen: () => journal.freezeReason(),
      }),
    );
    this.poller = this.own(
      new InstancePoller({
        fetch: (signal) => this.session.client.instances.listInOneRequest({ signal, retry: 'never' }),
        intervalMs: () => config.pollIntervalSeconds() * 1000,
        logger: this.logger,
      }),
    );
    this.boots = this.own(new BootStatus(this.poller, this.state));
    this.costs = new CostTracker({ charges: (range) => this.session.client.billing.charges(range), logger: this.logger });
    this.instancesView = this.own(new InstancesView(this.session, this.poller, this.costs));
    this.offersView = this.own(new OffersView(this.session, this.state));
    this.renter = this.own(new Renter({ journal, createClient: this.createClient, logger: this.logger }));
    this.pendingRents = this.own(
      new PendingRents(this.renter, (id) => {
        this.boots.track(id);
        void this.poller.refresh();
      }),
    );
    // A closing window hands its unsettled rents to the next window at once.
    this.own({ dispose: () => void journal.release() });
    this.instancesView.attach(this.own(vscode.window.createTreeView(VIEWS.instances, { treeDataProvider: this.instancesView })));
    this.offersView.attach(this.own(vscode.window.createTreeView(VIEWS.offers, { treeDataProvider: this.offersView })));
    this.accountView = this.own(new AccountView(this.session));
    this.own(vscode.window.createTreeView(VIEWS.account, { treeDataProvider: this.accountView }));
    this.accountStatus = this.own(new AccountStatus(this.session, () => this.profileLabel()));
    this.own(this.profiles.onDidChange(() => this.accountStatus.update()));
    this.spend = this.own(new SpendGuard(this.session, this.poller, this.accountStatus, this.state));
    this.own(this.forwards);
    this.connector = new SshConnector({
      keys: () => {
        const k = this.session.client.sshKeys;
        return {
          list: () => k.list(),
          create: (p) => k.create(p),
          listForInstance: (id) => k.listForInstance(id),
          attach: (id, p) => k.attach(id, p),
        };
      },
      config: () => this.sshConfig(),
      findKey: () => findLocalKey(config.sshIdentityFile()),
      createKey: () => this.offerNewKey(),
      logger: this.logger,
      profile: () => sshProfile(this.session.profileId),
    });
    this.own(this.poller.onDidUpdate((snapshot) => this.followInstances(snapshot.instances)));
    this.idle = this.own(new IdleGuard(this));

    const identity = (state: SessionState) =>
      `${state.kind}|${this.session.profileId}|${this.session.baseUrl}|${state.kind === 'ready' ? (state.user?.id ?? '') : ''}`;
    let lastIdentity = identity(this.session.state);
    this.own(
      this.session.onDidChangeState((state) => {
        // A credit refresh (same account, still ready) must not reload the views.
        const changed = identity(state) !== lastIdentity;
        lastIdentity = identity(state);
        void vscode.commands.executeCommand('setContext', CONTEXT.state, state.kind);
        if (state.kind === 'unreachable' || state.kind === 'rejected') this.logger.warn(state.error.toLogString());
        if (state.kind === 'badUrl') this.logger.warn(state.message);
        this.poller.setEnabled(state.kind === 'ready');
        if (state.kind !== 'ready') this.costs.reset();
        // Another key may be another account: only ids seen under this one count as destroyed when they vanish.
        if (state.kind !== 'ready') this.seen.clear();
        if (state.kind !== 'checking' && changed) this.refreshViews();
      }),
    );
    this.own(
      vscode.workspace.onDidChangeConfiguration((e) => {
        // The setting is the default profile's base URL; other profiles keep their own.
        if (e.affectsConfiguration(SETTINGS.apiUrl) && this.session.profileId === DEFAULT_PROFILE_ID) this.followBaseUrlSetting();
      }),
    );
    // A base URL change that waited for a rent to settle applies once none is pending.
    this.own(
      journal.onDidChange(() => {
        if (this.baseUrlWaiting && !journal.freezeReason()) this.followBaseUrlSetting();
      }),
    );
  }

  private baseUrlWaiting = false;

  /**
   * Applies gpuRental.apiUrl. While a rent is unsettled the window stays on the service the rent
   * went to (the setting cannot be refused, so the change waits), and the user is told why.
   */
  private followBaseUrlSetting(): void {
    const wanted = config.apiUrl();
    const reason = this.renter.journal.freezeReason();
    if (reason && wanted !== this.session.baseUrl) {
      if (!this.baseUrlWaiting)
        void vscode.window.showWarningMessage(
          `GPU Rental keeps using ${this.session.baseUrl} for now; it switches to ${wanted} once the rent is settled. Why: ${reason}`,
        );
      this.baseUrlWaiting = true;
      return;
    }
    this.baseUrlWaiting = false;
    void this.session.setBaseUrl(wanted).catch((error: unknown) => this.logger.warn(`The base URL was not changed: ${String(error)}`));
  }

  /** The profile this window uses. */
  get profile(): Profile {
    return this.profiles.get(this.session.profileId) ?? DEFAULT_PROFILE;
  }

  /** The profile's name while there are several (one account needs no label). */
  profileLabel(): string | undefined {
    return this.profiles.list().length > 1 ? this.profile.name : undefined;
  }

  /** The service, and the profile when there are several: for messages. */
  get where(): string {
    return serviceLabel(this.session.baseUrl, this.profileLabel());
  }

  /** Switches this window to another profile; new windows start with it too. */
  async switchProfile(id: string): Promise<void> {
    const profile = this.profiles.get(id);
    if (!profile) throw new Error(`There is no GPU Rental profile "${id}".`);
    // While a rent is being sent or checked, the window keeps showing the account it went to, or
    // a paid instance could go unseen.
    if (id !== this.session.profileId) {
      if (this.renter.busy)
        throw new Error(
          'A rent is in progress. Switch profiles once it has finished, so that the new instance is shown in the account it was rented on.',
        );
      this.session.assertNotFrozen();
    }
    await this.profiles.setLast(id);
    this.logger.info(`Switched to the profile "${profile.name}" (${this.profiles.baseUrl(profile)}).`);
    await this.session.setProfile(id, this.profiles.baseUrl(profile));
  }

  /** The stored key of any profile, for a look at its account before it is removed. */
  keyOf(profile: Profile, normalizedBaseUrl: string): Promise<string | undefined> {
    return this.keys.get(keySlot(profile.id, normalizedBaseUrl));
  }

  /** Deletes a profile's key from this machine; refused while a rent is unsettled. */
  deleteKeyOf(profile: Profile, normalizedBaseUrl: string): Promise<void> {
    this.session.assertNotFrozen();
    return this.keys.delete(keySlot(profile.id, normalizedBaseUrl));
  }

  /**
   * A Remote-SSH window on an instance of another profile uses that profile (its alias names it),
   * so the instance it runs on is the one it watches. Otherwise the profile chosen last.
   */
  private initialProfile(): Profile {
    const named = parseHostAlias(windowAlias())?.profile;
    return (named && this.profiles.get(named)) || this.profiles.last();
  }

  /** The SSH config files, read from the settings each time (Remote-SSH's configFile may change). */
  sshConfig(): SshConfigManager {
    return new SshConfigManager(sshPaths(remoteSshConfigFile(this.handoff)), this.logger);
  }

  /** A destroyed instance's SSH entry and Remote-SSH platform entry go with it. */
  async forgetInstance(id: number): Promise<void> {
    this.forwards.stopInstance(id);
    const alias = this.connector.alias(id);
    await this.connector
      .forget(id)
      .catch((error: unknown) => this.logger.warn(`Could not remove the SSH entry ${alias}: ${String(error)}`));
    await forgetRemotePlatform(
      REMOTE_SSH_EXTENSIONS.map((e) => e.section),
      alias,
    ).catch((error: unknown) => this.logger.warn(`Could not remove ${alias} from remotePlatform: ${String(error)}`));
  }

  /** Instances seen before and gone now (destroyed elsewhere too) lose their SSH entries; stopped ones their forwards. */
  private followInstances(instances: readonly Instance[]): void {
    const now = new Set(instances.map((i) => i.id));
    for (const id of this.seen) if (!now.has(id)) void this.forgetInstance(id);
    this.seen = now;
    for (const i of instances) if (instancePhase(i) !== 'running') this.forwards.stopInstance(i.id);
  }

  /** No key was found: ask, then make an ed25519 key where none exists. */
  private async offerNewKey() {
    const path = await newKeyPath();
    const ok = await this.prompts.confirm(
      'No SSH key found. Create one?',
      `GPU Rental needs an SSH key to connect. It will create a new ed25519 key at ${path} (no passphrase; nothing is overwritten) and register its public half on your account. Or cancel and choose a key with the gpuRental.ssh.identityFile setting.`,
      'Create Key',
    );
    if (!ok) return undefined;
    const key = await generateKey(path, `gpu-rental@${hostname()}`);
    this.logger.info(`Created the SSH key ${path}.`);
    return key;
  }

  /** Imports the environment's key if there is one to import, then checks the stored key. */
  async start(): Promise<void> {
    void vscode.commands.executeCommand('setContext', CONTEXT.state, this.session.state.kind);
    await this.importEnvironmentKey();
    await this.session.start();
    // Rents an earlier window (or this one before a reload) left unsettled are checked now.
    this.pendingRents.resume();
  }

  refreshViews(): void {
    this.instancesView.refresh();
    this.offersView.refresh();
    this.accountView.refresh();
  }

  /** After an explicit sign-out, the environment's key is not imported again for that service. */
  async rememberSignOut(): Promise<void> {
    const baseUrl = this.session.normalizedBaseUrl ?? this.session.baseUrl;
    const signedOut = new Set(this.context.globalState.get<string[]>(SIGNED_OUT_KEY, []));
    signedOut.add(baseUrl);
    await this.context.globalState.update(SIGNED_OUT_KEY, [...signedOut]);
  }

  dispose(): void {
    for (const d of this.disposables.reverse()) d.dispose();
  }

  /**
   * `npm start` and automation pass a key in GPU_RENTAL_API_KEY. It is copied into SecretStorage
   * once, when no key is stored for the service and the user has not signed out of it.
   */
  private async importEnvironmentKey(): Promise<void> {
    const key = process.env[API_KEY_ENV]?.trim();
    // Only into the default profile: an added profile is another account, the key is not its.
    if (!key || this.session.state.kind === 'badUrl' || this.session.profileId !== DEFAULT_PROFILE_ID) return;
    const baseUrl = this.session.normalizedBaseUrl;
    if (!baseUrl) return;
    if (this.context.globalState.get<string[]>(SIGNED_OUT_KEY, []).includes(baseUrl)) return;
    if (await this.keys.get(baseUrl)) return;
    await this.keys.store(baseUrl, key);
    this.logger.info(`Imported the API key from ${API_KEY_ENV} for ${baseUrl}.`);
  }

  private own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }
}
