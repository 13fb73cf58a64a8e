import * as vscode from 'vscode';
import { API_KEY_ENV, CONTEXT } from '../core/ids';
import type { Logger } from '../core/log';
import { Session, type ClientFactory } from '../core/session/session';
import { StoredState } from '../core/state/storedState';
import { STORED, type GpuRentalState } from '../core/stored';
import { ProfileSwitcher } from '../core/session/profileSwitcher';
import { EnvironmentKey } from '../core/session/environmentKey';
import { CostTracker } from '../core/billing/costs';
import { InstancePoller } from '../core/instances/poller';
import { Renter } from '../core/rent/renter';
import { RentJournal } from '../core/rent/journal';
import { PendingRents, journalStorage } from './guards/pendingRents';
import { PortForwards } from '../core/ssh/forward';
import type { SshConfigManager } from '../core/ssh/manager';
import type { SshConnector } from '../core/ssh/connector';
import type { InstanceCleanup } from '../core/ssh/instanceCleanup';
import { createSsh, type Ssh } from './host/ssh';
import { vscodeHandoff, type RemoteHandoff } from './host/remote';
import { AccountStatus } from './status/accountStatus';
import { SpendGuard } from './guards/spendGuard';
import { IdleGuard } from './guards/idleGuard';
import { Profiles } from './host/profiles';
import { BootStatus } from './status/bootStatus';
import { modalPrompts, type Prompts } from './pickers/prompts';
import { config } from './host/config';
import { channelLogger } from './output/log';
import { showApiError, type ShowError } from './commands/errors';
import { followApiUrlSetting, followSession, windowProfile } from './host/sessionFollower';
import { clientFactory } from './host/clients';
import { BrowserWorkspaces } from '../core/browserWorkspace/sessions';
import { LoginPages } from '../core/browserWorkspace/loginPage';
import { SearchWatcherUi } from './host/searchWatcher';
import { SecretKeyStore } from './host/secrets';
import { NotifyVault } from '../core/notify/vault';
import { TreeViews } from './views/treeViews';
import type { InstancesView } from './views/instancesView';
import type { OffersView } from './views/offersView';
import { OfferExplorer } from './views/explorerPanel';
import type { AccountView } from './views/account/accountView';
import { JobMemory } from '../core/jobs/memory';
import { JobChoices } from '../core/jobs/choices';
import { Jobs } from './views/jobItems';
import { OutbidNotifier, policyConfirm } from './guards/outbid';
import { ContractNotifier } from './guards/contracts';
import { outbidPolicies } from '../core/rent/outbidWiring';
import { showProgress } from './pickers/progress';
import { PriceContextSource } from '../core/offers/priceSource';
import { RemoteWindow } from './status/remoteWindow';
import { browserWorkspaceStatus } from './status/browserWorkspaceStatus';
import { LinkHandler } from './host/uriHandler';
import { InstanceLogChannels, LogFollowers } from './output/instanceLogs';
import { walkthroughProgress } from './host/walkthrough';
import { showAfterRent } from './commands/health';
import { startHealthAfterRent } from '../core/health/afterRentWiring';
import type { HealthAfterRent } from '../core/health/afterRent';
import type { ShellParts } from './shell/parts';

/**
 * The composition root: builds every long-lived object of the extension once, when the rest of it
 * loads (src/main.ts), and wires them to each other. The behaviours live in the classes it builds; the command modules get
 * the few they use (src/ui/commands/index.ts). Nothing here talks to the network until asked.
 */
export class Services implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  readonly log = this.own(vscode.window.createOutputChannel(vscode.l10n.t('GPU Rental'), { log: true }));
  readonly logger: Logger = channelLogger(this.log);
  /** Every value kept in global state, typed and checked. */
  readonly state: GpuRentalState;
  /** Replaced by integration tests to answer confirmations: read it when asking, never keep it. */
  prompts: Prompts = modalPrompts;
  /** Replaced by integration tests to observe the Remote-SSH handoff: read it when handing off. */
  handoff: RemoteHandoff = vscodeHandoff;
  /** Makes a client for a base URL and key; the session's, and short-lived ones for other profiles. */
  readonly createClient: ClientFactory;
  readonly profiles: Profiles;
  readonly session: Session;
  readonly switcher: ProfileSwitcher;
  readonly environmentKey: EnvironmentKey;
  readonly showError: ShowError;
  readonly poller: InstancePoller;
  readonly boots: BootStatus;
  /** The health check after every rent made in this window (src/ui/commands/health.ts). */
  readonly healthAfterRent: HealthAfterRent;
  readonly costs: CostTracker;
  readonly renter: Renter;
  /** Unsettled rents in the status bar, and their outcomes once known. */
  readonly pendingRents: PendingRents;
  readonly views: TreeViews;
  readonly instancesView: InstancesView;
  readonly offersView: OffersView;
  readonly accountView: AccountView;
  readonly accountStatus: AccountStatus;
  readonly spend: SpendGuard;
  readonly forwards = this.own(new PortForwards());
  /** The instances' VS Code servers open in a browser (Open in Browser), each as long as its forward. */
  readonly browserWorkspaces = new BrowserWorkspaces(this.forwards);
  /** The one-time sign-in pages Open in Browser hands to the browser. */
  readonly loginPages = this.own(new LoginPages());
  /** Reads a small document on another host through the extension's proxy-aware HTTP stack. */
  readonly fetchText: (url: string, signal: AbortSignal) => Promise<string>;
  readonly connector: SshConnector;
  readonly cleanup: InstanceCleanup;
  /** The SSH config files, read from the settings each time (Remote-SSH's configFile may change). */
  readonly sshConfig: () => SshConfigManager;
  /** How `ssh` reaches a running instance (its entry written first); see createSsh. */
  readonly sshTarget: Ssh['target'];
  readonly idle: IdleGuard;
  /** What this workspace remembers about its jobs (workspaceState): the jobs to re-attach, the last command. */
  readonly jobMemory: JobMemory;
  /** Jobs on instances: started, followed into terminals, listed under their instance. */
  readonly jobs: Jobs;
  /** Watched saved searches: one window looks for new offers and notifies (src/core/offers/watch.ts). */
  readonly searchWatcher: SearchWatcherUi;
  /** Says once, in one window, when an interruptible instance was outbid and stopped. */
  readonly outbid: OutbidNotifier;
  /** The hosts' price increases and contract ends: told once, shown on the rows (src/ui/guards/contracts.ts). */
  readonly contracts: ContractNotifier;
  /** The going rate of GPU models (the service's metrics), cached per service and profile; never blocks a search or a rent. */
  readonly priceContext: PriceContextSource;
  /** The Offer Explorer panel (one per window); its serializer restores it after a reload. */
  readonly explorer: OfferExplorer;
  /** The Remote-SSH window on an instance this window is, if it is one: the remote indicator's menu follows it. */
  readonly remoteWindow: RemoteWindow;
  /** Opens vscode://<publisher>.<name>/connect links (src/ui/host/uriHandler.ts); the activation chunk's handler calls it. */
  readonly links: LinkHandler;
  /** One output channel per instance for its log (Show Instance Logs, Follow Instance Logs). */
  readonly logChannels = this.own(new InstanceLogChannels());
  /** The instance logs this window follows. */
  readonly logFollowers: LogFollowers;
  /** Notify Me: the signing secrets and URLs of the webhooks set up here, per service and profile, in SecretStorage only. */
  readonly notifyVault: NotifyVault;

  constructor(
    readonly context: vscode.ExtensionContext,
    shell: ShellParts,
  ) {
    const { logger } = this;
    this.state = new StoredState(STORED, context.globalState, logger);
    const clients = this.own(clientFactory(context, logger));
    const createClient = (this.createClient = clients.createClient);
    this.fetchText = clients.fetchText;
    const keys = this.own(new SecretKeyStore(context.secrets));
    this.notifyVault = new NotifyVault(context.secrets);
    this.profiles = this.own(new Profiles(this.state));
    const profile = windowProfile(this.profiles);
    // Written before a rent is sent, settled when its outcome is known; shared by every window.
    const journal = this.own(
      new RentJournal(journalStorage(this.state, context.secrets), `${vscode.env.sessionId}:${Math.random().toString(16).slice(2, 10)}`),
    );
    const options = { keys, logger, createClient, profileId: profile.id, frozen: () => journal.freezeReason() };
    const session = (this.session = this.own(new Session(this.profiles.baseUrl(profile), options)));
    this.renter = this.own(new Renter({ journal, createClient, logger }));
    this.switcher = new ProfileSwitcher({ profiles: this.profiles, session, renter: this.renter, keys, logger });
    this.environmentKey = new EnvironmentKey({ environmentKey: () => process.env[API_KEY_ENV], session, keys, state: this.state, logger });
    const profileCount = () => this.profiles.list().length;
    this.showError = (error) => showApiError({ logger, log: this.log, session, profileCount }, error);
    const poller = (this.poller = this.own(
      new InstancePoller({
        fetch: (signal) => session.client.instances.listInOneRequest({ signal, retry: 'never' }),
        intervalMs: () => config.pollIntervalSeconds() * 1000,
        logger,
      }),
    ));
    this.boots = this.own(new BootStatus(this.poller, this.state, logger));
    this.costs = new CostTracker({ charges: (range) => session.client.billing.charges(range), logger });
    const rented = (id: number) => {
      this.boots.track(id);
      void this.healthAfterRent.expect(id);
      void poller.refresh();
    };
    this.pendingRents = this.own(new PendingRents(this.renter, rented));
    // A closing window hands its unsettled rents to the next window at once.
    this.own({ dispose: () => void journal.release() });
    const views = (this.views = this.own(new TreeViews(shell.trees, session, poller, this.costs, this.state)));
    ({ instances: this.instancesView, offers: this.offersView, account: this.accountView } = views);
    this.priceContext = new PriceContextSource({
      client: () => session.client,
      scope: () => (session.hasKey && session.normalizedBaseUrl ? `${session.normalizedBaseUrl} ${session.profileId}` : undefined),
      logger,
    });
    this.offersView.usePriceContext(this.priceContext);
    this.accountStatus = this.own(new AccountStatus(session, () => this.switcher.profileLabel()));
    this.own(this.profiles.onDidChange(() => this.accountStatus.update()));
    this.spend = this.own(new SpendGuard(session, this.poller, this.accountStatus, this.state));
    const [prompts, handoff] = [() => this.prompts, () => this.handoff];
    const ssh = this.own(createSsh({ session, poller, forwards: this.forwards, prompts, handoff, logger }));
    ({ connector: this.connector, cleanup: this.cleanup, sshConfig: this.sshConfig, target: this.sshTarget } = ssh);
    // The health check after every rent made in this window.
    this.healthAfterRent = this.own(
      startHealthAfterRent({
        store: this.state,
        owner: vscode.env.sessionId,
        settings: config,
        sshTarget: this.sshTarget,
        poller,
        logger,
        shown: (result) => showAfterRent({ session, poller, cleanup: this.cleanup, sshTarget: this.sshTarget, prompts, logger }, result),
      }),
    ).health;
    this.idle = this.own(new IdleGuard({ session, poller, forwards: this.forwards, state: this.state, prompts, logger }));
    this.jobMemory = new JobMemory(context.workspaceState);
    this.jobs = this.own(
      new Jobs({
        poller,
        sshTarget: this.sshTarget,
        memory: this.jobMemory,
        choices: new JobChoices(this.state),
        logger,
        terminals: this.idle.terminals,
      }),
    );
    this.instancesView.setChildren(this.jobs);
    const policies = outbidPolicies({
      session,
      poller,
      renter: this.renter,
      allowsSpend: (perHour, reason) => this.spend.allows(poller, perHour, reason),
      sshTarget: this.sshTarget,
      book: this.jobs.book,
      progress: showProgress,
      ask: policyConfirm,
      logger,
    });
    this.outbid = this.own(new OutbidNotifier({ session, poller, state: this.state, logger, policies }));
    this.contracts = this.own(new ContractNotifier({ session, poller, state: this.state, logger }));
    this.instancesView.setContracts(this.contracts);
    const refreshViews = () => views.refresh();
    this.own(followSession({ session, poller, costs: this.costs, cleanup: this.cleanup, refreshViews, logger }));
    this.own(followApiUrlSetting({ session, journal, logger }));
    // Searches with each watch's own profile key, so switching profiles does not stop a watch.
    this.remoteWindow = this.own(new RemoteWindow(poller));
    this.own(browserWorkspaceStatus({ workspaces: this.browserWorkspaces, poller, show: (id) => session.client.instances.show(id) }));
    this.logFollowers = this.own(new LogFollowers({ session, poller, logChannels: this.logChannels, logger }));
    this.links = new LinkHandler({
      session,
      poller,
      profiles: this.profiles,
      switcher: this.switcher,
      prompts,
      logger,
      extensionId: context.extension.id,
    });
    this.searchWatcher = this.own(
      new SearchWatcherUi({ state: this.state, keys, createClient, session, offersView: this.offersView, logger }),
    );
    // Marks the Get Started walkthrough's steps done as the user does them.
    this.own(walkthroughProgress({ session, poller, offersView: this.offersView }));
    this.explorer = this.own(
      new OfferExplorer({
        session,
        offersView: this.offersView,
        state: this.state,
        extensionUri: context.extensionUri,
        logger,
        priceStats: (names) => this.priceContext.statsFor(names),
      }),
    );
  }

  /** Imports the environment's key if there is one to import, checks the stored key, resumes unsettled rents. */
  async start(): Promise<void> {
    void vscode.commands.executeCommand('setContext', CONTEXT.state, this.session.state.kind);
    await this.environmentKey.importKey();
    await this.session.start();
    // Rents an earlier window (or this one before a reload) left unsettled are checked now.
    this.pendingRents.resume();
  }

  dispose(): void {
    for (const d of this.disposables.reverse()) d.dispose();
  }

  private own<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }
}
