import type * as vscode from 'vscode';
import type { Instance } from '../core/api/instances';
import type { SessionStateKind } from '../core/session/session';
import type { Stored, StoredKey } from '../core/stored';
import type { Prompts } from './pickers/prompts';
import { modalPrompts } from './pickers/prompts';
import { vscodeHandoff, type RemoteHandoff } from './host/remote';
import type { OutbidNotice } from './guards/outbid';
import type { Services } from './services';
import type { InstancesViewItem } from './views/instancesView';
import type { OffersViewItem } from './views/offersView';
import type { ExplorerSnapshot } from './views/explorerPanel';
import type { AccountViewItem } from './views/account/accountView';
import type { RemoteWindowState } from './status/remoteWindow';
import type { LinkOutcome } from './host/uriHandler';
import type { FollowedLog } from './output/instanceLogs';

/** Undoes a replacement made through the test API. */
export type Restore = () => void;

/** What the window is signed in to, as a user would read it off the status bar and the Account view. */
export interface SessionSnapshot {
  readonly state: SessionStateKind;
  /** The account, when the key may read it. */
  readonly user?: { readonly id: number; readonly email?: string | null; readonly credit?: number | null };
  readonly profileId: string;
  /** The ids of every profile, the default one first. */
  readonly profileIds: readonly string[];
  readonly baseUrl: string;
  readonly hasKey: boolean;
  /** A fingerprint of the key in use (never the key). */
  readonly keyFingerprint: string | undefined;
}

/** A status bar item as shown: its text and its tooltip's text. */
export interface StatusBarText {
  readonly text: string;
  readonly tooltip: string;
  /** Its accessibility label, what a screen reader says (the account item sets one in every state). */
  readonly spoken?: string;
}

/** Events seen since `record…` was called, until `dispose`. */
export interface Recording<T> extends vscode.Disposable {
  readonly seen: readonly T[];
}

/**
 * What the integration tests observe and steer, and nothing more. `activate` returns it; nothing
 * in the extension reads it. It is the one place tests reach into the extension's objects, so the
 * objects can be rebuilt without rewriting the suites: keep it small, and prefer what a user sees
 * (rows, status bar text) over internal state.
 */
export interface TestApi {
  /** The session now: state, account, profile, base URL, key. */
  session(): SessionSnapshot;
  /** Whether SecretStorage holds a key for a profile at a (normalized) base URL. */
  hasStoredKey(profileId: string, baseUrl: string): Promise<boolean>;
  /** Records the session's state changes (their kinds) until disposed. */
  recordSessionStates(): Recording<SessionStateKind>;
  /** Switches this window to another profile, as the profile picker does (refused while a rent is in progress). */
  switchProfile(id: string): Promise<void>;

  /** The instances of the last poll (empty before the first one). */
  instances(): readonly Instance[];
  /** Polls the instance list now. */
  refreshInstances(): Promise<void>;
  /** Records the errors instance polls end with, until disposed. */
  recordPollFailures(): Recording<unknown>;
  /** The rows of the Instances view, as VS Code would ask for them. */
  instanceItems(): Promise<InstancesViewItem[]>;
  /** The Instances view's badge (running instances) and description (total $/h) as set now. */
  instancesHeader(): { badge: number | undefined; badgeTooltip: string | undefined; description: string | undefined };
  /** The SSH alias (Host name) this window writes for an instance. */
  sshAlias(instanceId: number): string;
  /** The port forwards this window runs (Forward a Port, Open Jupyter): which instance, which ports. */
  forwards(): ReadonlyArray<{ readonly instanceId: number; readonly remotePort: number; readonly localPort: number }>;
  /** The job rows under an instance in the Instances view, as the tree asks for them. */
  jobItems(instanceId: number): Promise<InstancesViewItem[]>;
  /** What a job's terminal holds (its output as the terminal shows it); undefined when it has none in this window. */
  jobOutput(jobId: string): string | undefined;
  /** Whether a job's terminal is open. */
  jobTerminalOpen(jobId: string): boolean;
  /** Puts jobs in an absolute folder on the instance instead of ~/.gpu-rental/jobs (undefined: back to that). */
  useJobsFolder(folder: string | undefined): void;
  /** Drops every follower and terminal of jobs and re-attaches from the workspace's memory, as a reloaded window does. */
  reattachJobs(): void;

  /** The rows of the Offers view: the filters header, the offers, load more / relax rows. */
  offerItems(): Promise<OffersViewItem[]>;
  /** The Offer Explorer: open or not, how many times its webview said ready, the offers it shows, what the webview measured. */
  explorer(): ExplorerSnapshot;
  /** Hands the Offer Explorer a message as if its webview had sent it (checked the same way). */
  sendToExplorer(message: unknown): Promise<void>;
  /** Records the text of each watched-search notification this window shows (a match, a stopped or refused watch), until disposed. */
  recordWatchNotices(): Recording<string>;
  /** The Account view's rows below the rows named by `path` (top level when empty), each found by its label. */
  accountItems(...path: string[]): Promise<AccountViewItem[]>;

  /** The account item (credit, burn, flags) and the boot item, undefined while nothing boots. */
  statusBar(): { readonly account: StatusBarText; readonly boot: StatusBarText | undefined };
  /** What the account's instances cost per hour now, as the spend guard counts it. */
  burnPerHour(): number | undefined;
  /** Snoozes the low-credit warning for `ms` from now (0 or less ends a snooze). */
  snoozeLowCredit(ms: number): Promise<void>;

  /** Rents being sent, and rents whose outcome is not known yet (their labels), in any window. */
  rents(): { readonly inProgress: boolean; readonly unsettled: readonly string[]; readonly freezeReason: string | undefined };

  /** The outbid notifications this window showed (instance, text, buttons), oldest first. */
  outbidNotices(): readonly OutbidNotice[];

  /** Runs the idle check on the last poll's instances, as each poll does. */
  checkIdle(): Promise<void>;
  /** Instances this window stopped for being idle. */
  idleStopped(): readonly number[];
  /** What a window on a stopped instance says and offers (resolves with what it found). */
  explainStopped(instanceId: number): Promise<string>;

  /** Takes this window to be a Remote-SSH window on instance `id` (code-server cannot open one); the restore undoes it. */
  pretendRemoteInstance(id: number | undefined): Restore;
  /** What the remote indicator's menu knows (its context keys): the window's instance, its phase in the last poll, Jupyter. */
  remoteWindow(): RemoteWindowState;
  /** Opens a link as the URI handler does when the OS hands one over; resolves with how it ended. */
  openLink(link: string): Promise<LinkOutcome>;
  /** The link that opens an instance in this editor (its scheme, this extension's id). */
  linkTo(instanceId: number, profileId?: string): string;
  /** What Follow Instance Logs showed for an instance (its lines and notes), and whether it still follows. */
  followedLog(instanceId: number): FollowedLog | undefined;
  /** What a window does when it activates: import the environment's key, check the key, resume unsettled rents. */
  start(): Promise<void>;

  /** A value GPU Rental keeps in global state. */
  stored<K extends StoredKey>(key: K): Stored<K>;
  /** Writes a value GPU Rental keeps in global state, as an older window might have left it. */
  store<K extends StoredKey>(key: K, value: Stored<K> | undefined): Promise<void>;

  /** Answers the confirmations and countdowns instead of modal dialogs (which a test cannot click). */
  answerPrompts(prompts: Prompts): Restore;
  /** Sees the Remote-SSH handoff instead of opening a window (code-server has no Remote-SSH). */
  observeHandoff(handoff: RemoteHandoff): Restore;
  /** Puts the real prompts and handoff back. */
  restoreDefaults(): void;
}

/** The test API over the extension's objects. */
export function testApi(services: Services): TestApi {
  const s = services;
  const replace = <K extends 'prompts' | 'handoff'>(key: K, value: Services[K]): Restore => {
    const before = s[key];
    s[key] = value;
    return () => void (s[key] = before);
  };
  const recording = <T>(subscribe: (push: (value: T) => void) => vscode.Disposable): Recording<T> => {
    const seen: T[] = [];
    const subscription = subscribe((value) => seen.push(value));
    return { seen, dispose: () => subscription.dispose() };
  };
  return {
    session: () => {
      const state = s.session.state;
      const user = state.kind === 'ready' ? state.user : undefined;
      return {
        state: state.kind,
        user: user && { id: user.id, email: user.email, credit: user.credit },
        profileId: s.session.profileId,
        profileIds: s.profiles.list().map((p) => p.id),
        baseUrl: s.session.baseUrl,
        hasKey: s.session.hasKey,
        keyFingerprint: s.session.keyFingerprint,
      };
    },
    hasStoredKey: async (profileId, baseUrl) => (await s.switcher.keyOf({ id: profileId, name: profileId }, baseUrl)) !== undefined,
    recordSessionStates: () => recording((push) => s.session.onDidChangeState((state) => push(state.kind))),
    switchProfile: (id) => s.switcher.switchProfile(id),

    instances: () => s.poller.snapshot?.instances ?? [],
    refreshInstances: () => s.poller.refresh(),
    recordPollFailures: () => recording((push) => s.poller.onDidFail(push)),
    instanceItems: () => s.instancesView.getChildren(),
    instancesHeader: () => s.instancesView.header,
    sshAlias: (id) => s.connector.alias(id),
    forwards: () => s.forwards.list().map((f) => ({ instanceId: f.instanceId, remotePort: f.remotePort, localPort: f.localPort })),
    jobItems: async (id) => {
      const parent = (await s.instancesView.getChildren()).find((r) => r.id === `instance-${id}`);
      if (!parent) throw new Error(`The Instances view has no row for #${id}`);
      return s.instancesView.getChildren(parent);
    },
    jobOutput: (jobId) => s.jobs.outputText(jobId),
    jobTerminalOpen: (jobId) => s.jobs.terminalOpen(jobId),
    reattachJobs: () => s.jobs.reattach(),
    useJobsFolder: (folder) => void (s.jobs.jobsDir = folder),

    offerItems: () => s.offersView.getChildren(),
    explorer: () => s.explorer.snapshot(),
    sendToExplorer: (message) => s.explorer.receive(message),
    recordWatchNotices: () => recording((push) => s.searchWatcher.onDidShow(push)),
    accountItems: async (...path) => {
      let parent: AccountViewItem | undefined;
      for (const label of path) {
        const rows: AccountViewItem[] = await s.accountView.getChildren(parent);
        parent = rows.find((r) => r.label === label);
        if (!parent) throw new Error(`The Account view has no row "${label}" (found: ${rows.map((r) => String(r.label)).join(', ')})`);
      }
      return s.accountView.getChildren(parent);
    },

    statusBar: () => {
      const boot = s.boots.text;
      return {
        account: { text: s.accountStatus.text, tooltip: s.accountStatus.tooltipText, spoken: s.accountStatus.spoken },
        boot: boot === undefined ? undefined : { text: boot, tooltip: s.boots.tooltipText },
      };
    },
    burnPerHour: () => s.spend.burn?.perHour,
    snoozeLowCredit: (ms) => s.spend.snooze(ms),

    rents: () => ({
      inProgress: s.renter.busy,
      unsettled: s.renter.journal.entries().map((e) => e.label),
      freezeReason: s.renter.journal.freezeReason(),
    }),

    outbidNotices: () => [...s.outbid.shown],

    checkIdle: () => s.idle.check(s.poller.snapshot?.instances ?? []),
    idleStopped: () => [...s.idle.stopped],
    explainStopped: (id) => s.idle.explainStopped(id, s.poller.snapshot?.instances ?? []),

    pretendRemoteInstance: (id) => {
      const before = s.remoteWindow.instanceId;
      s.remoteWindow.pretend(id);
      return () => s.remoteWindow.pretend(before);
    },
    remoteWindow: () => s.remoteWindow.state,
    openLink: (link) => s.links.open(link),
    linkTo: (id, profileId) => s.links.linkTo(id, profileId),
    followedLog: (id) => s.logFollowers.snapshot(id),
    start: () => s.start(),

    stored: (key) => s.state.get(key),
    store: (key, value) => s.state.update(key, value),

    answerPrompts: (prompts) => replace('prompts', prompts),
    observeHandoff: (handoff) => replace('handoff', handoff),
    restoreDefaults: () => {
      s.prompts = modalPrompts;
      s.handoff = vscodeHandoff;
    },
  };
}
