import { randomBytes } from 'node:crypto';
import type { Instance } from '../api/instances';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { l10n, sentences } from '../l10n';
import type { Logger } from '../log';
import type { Notice } from '../notice';
import { lastErrorLine, type RemoteResult, type SshTarget } from '../ssh/remote';
import type { StoredAccess } from '../state/storedState';
import { visibleText } from '../text';
import { costSoFar, type HealthAction } from './check';
import { SCRIPT_TIMEOUT_MS, healthScript, readHealthOutput } from './probe';
import { judge, vramUnchecked, type Verdict } from './verdict';

/*
 * The health check after a rent: a rent made in this window is expected (`expect`); the first
 * poller snapshot that shows it running starts the check (`update`), which waits for its sshd,
 * runs the one health script and judges it. A machine as offered gets no notification of its own
 * (the status bar says "2× RTX 4090 as offered"); one with a finding gets a warning with the verdict,
 * its cost so far and Destroy Instance; a check that could not run is a log line and a quiet,
 * neutral "health: not checked yet (…)" (no key yet, no sshd yet: nothing is wrong with the
 * machine). A cluster's nodes are checked together, once each, with one summary (`checkNodes`),
 * which names LISTED_NODES nodes with a finding and counts the rest. Every window sees the same instances: the expected rents live in global state,
 * and the first window that claims one checks it. The ui is src/ui/commands/health.ts.
 */

/** An expected check: when the rent was made, and the window that claimed it (until the claim lapses). */
export interface PendingCheck {
  since: number;
  owner?: string;
  until?: number;
}

/** Where the expected checks are kept (instance id → its check): shared by the windows. */
export type AfterRentStore = StoredAccess<{ healthAfterRent: Record<string, PendingCheck> }>;

/** A claimed check outlives its claim by this: ssh's wait, the script, and the notice. */
export const CLAIM_MS = 10 * 60_000;
/** An expected check whose instance has not run after this long is dropped (its boot failed, or it was destroyed). */
export const EXPECT_MS = 6 * 3600_000;
/** The write test of the automatic check, MiB: enough to tell a disk that writes 50 MB/s from one that writes 1 GB/s. */
export const AFTER_RENT_WRITE_MIB = 64;

export interface AfterRentDeps {
  readonly store: AfterRentStore;
  /** This window (VS Code's session id). */
  readonly owner: string;
  /** gpuRental.health.checkAfterRent. */
  enabled(): boolean;
  /** gpuRental.health.speedTestUrl (empty: no download test). */
  speedTestUrl(): string;
  /** Writes the instance's SSH entry and waits for its sshd to answer; throws (Error) when it cannot. */
  reach(instance: Instance, signal: AbortSignal): Promise<SshTarget>;
  run(target: SshTarget, script: string, timeoutMs: number, signal: AbortSignal): Promise<RemoteResult>;
  nonce?(): string;
  now(): number;
  readonly logger: Logger;
}

/** The short verdict the status bar shows, and what else is said. */
export type AfterRentResult =
  /** As offered, with no warning: only the status bar says so. */
  | { readonly kind: 'asOffered'; readonly instance: Instance; readonly verdict: Verdict; readonly status: string }
  /** A mismatch or a warning: a warning notification, with Destroy Instance. */
  | {
      readonly kind: 'finding';
      readonly instance: Instance;
      readonly verdict: Verdict;
      readonly status: string;
      readonly notice: Notice<HealthAction>;
    }
  /** ssh did not reach it, or nvidia-smi could not be read: a log line, and the quiet status. */
  | { readonly kind: 'notChecked'; readonly instance: Instance; readonly why: string; readonly status: string }
  /** Another window claimed it: nothing is said here. */
  | { readonly kind: 'elsewhere'; readonly instance: Instance };

/** One summary for a cluster's nodes. */
export interface NodesResult {
  readonly results: readonly AfterRentResult[];
  /** The quiet status line: "cluster health: 3 of 4 nodes as offered", "cluster health: 2 nodes not checked yet". */
  readonly status: string;
  /** Set when a node has a finding: one warning naming each such node. */
  readonly notice?: Notice;
}

export class HealthAfterRent {
  /** Checks this window started (the store entry goes when it ends). */
  private readonly started = new Set<number>();
  private readonly abort = new AbortController();

  constructor(private readonly deps: AfterRentDeps) {}

  /** A rent made in this window: its instance is checked when it first runs. Nothing when the setting is off. */
  async expect(instanceId: number): Promise<void> {
    if (!this.deps.enabled()) return;
    const now = this.deps.now();
    await this.deps.store.change('healthAfterRent', (all) => ({ ...prune(all, now), [String(instanceId)]: { since: now } }));
  }

  /**
   * A poller snapshot: starts the check of each expected instance it shows running, once, in the
   * window that claims it first. Resolves with each started check's result (the ui shows them as
   * they come; tests wait for them).
   */
  update(instances: readonly Instance[]): Promise<AfterRentResult>[] {
    const pending = this.deps.store.get('healthAfterRent');
    const checks: Promise<AfterRentResult>[] = [];
    for (const instance of instances) {
      const key = String(instance.id);
      if (!(key in pending) || this.started.has(instance.id) || instancePhase(instance) !== 'running') continue;
      this.started.add(instance.id);
      checks.push(this.claimAndCheck(instance));
    }
    return checks;
  }

  /**
   * A cluster's nodes, once running: each is checked once (claimed like a single rent), together,
   * with one summary. Undefined when the setting is off or another window checks them.
   */
  async checkNodes(nodes: readonly Instance[]): Promise<NodesResult | undefined> {
    if (!this.deps.enabled() || nodes.length === 0) return undefined;
    const mine: Instance[] = [];
    for (const node of nodes) {
      if (this.started.has(node.id)) continue;
      await this.expect(node.id);
      if (await this.claim(node.id)) {
        this.started.add(node.id);
        mine.push(node);
      }
    }
    if (mine.length === 0) return undefined;
    const results = await Promise.all(mine.map((node) => this.checkAndForget(node)));
    return nodesSummary(results, this.deps.now());
  }

  /** Stops the checks in flight (the window closes). */
  dispose(): void {
    this.abort.abort();
  }

  private async claimAndCheck(instance: Instance): Promise<AfterRentResult> {
    if (!(await this.claim(instance.id))) {
      this.deps.logger.info(`Health after rent of instance #${instance.id}: another window checks it.`);
      return { kind: 'elsewhere', instance };
    }
    return this.checkAndForget(instance);
  }

  /**
   * Claims the check for this window: false when another window holds a live claim. Global state
   * has no compare-and-set, so the claim is read back; two windows in the same instant may both
   * win, which costs a second read-only check, never a second rent or destroy.
   */
  private async claim(id: number): Promise<boolean> {
    const key = String(id);
    const now = this.deps.now();
    const entry = this.deps.store.get('healthAfterRent')[key];
    if (!entry) return false;
    if (entry.owner && entry.owner !== this.deps.owner && (entry.until ?? 0) > now) return false;
    await this.deps.store.change('healthAfterRent', (all) =>
      key in all ? { ...all, [key]: { since: all[key]!.since, owner: this.deps.owner, until: now + CLAIM_MS } } : all,
    );
    return this.deps.store.get('healthAfterRent')[key]?.owner === this.deps.owner;
  }

  private async checkAndForget(instance: Instance): Promise<AfterRentResult> {
    try {
      return await this.check(instance);
    } finally {
      await this.deps.store.change('healthAfterRent', (all) => {
        const rest = { ...all };
        delete rest[String(instance.id)];
        return rest;
      });
    }
  }

  private async check(instance: Instance): Promise<AfterRentResult> {
    const { deps } = this;
    const signal = this.abort.signal;
    // Not checked is a state, not a verdict: the status says so plainly, with the reason short (the log has it whole).
    const notChecked = (why: string): AfterRentResult => {
      deps.logger.warn(`Health after rent of instance #${instance.id}: not checked: ${why}`);
      return { kind: 'notChecked', instance, why, status: l10n.t('health: not checked yet ({0})', visibleText(why, STATUS_WHY_CHARS)) };
    };
    const nonce = deps.nonce?.() ?? randomBytes(8).toString('hex');
    const script = healthScript(nonce, { speedTestUrl: deps.speedTestUrl(), writeMiB: AFTER_RENT_WRITE_MIB });
    let result: RemoteResult;
    try {
      const target = await deps.reach(instance, signal);
      result = await deps.run(target, script, SCRIPT_TIMEOUT_MS, signal);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      return notChecked(visibleText(error.message, 200));
    }
    if (result.code === 255) return notChecked(l10n.t('ssh did not reach it ({0})', lastErrorLine(result.stderr)));
    const verdict = judge(readHealthOutput(result.stdout, nonce), instance);
    if (!verdict.readable) {
      const unread = verdict.findings.find((f) => f.code === 'unread');
      return notChecked(unread?.text ?? l10n.t('nvidia-smi could not be read'));
    }
    const worst = verdict.findings.find((f) => f.level === 'mismatch') ?? verdict.findings.find((f) => f.level === 'warning');
    deps.logger.info(
      `Health after rent of instance #${instance.id}: ${verdict.matches ? 'as offered' : 'NOT as offered'}; ${verdict.findings.map((f) => `${f.level} ${f.code}`).join(', ') || 'no findings'}.`,
    );
    const status = shortVerdict(verdict);
    if (!worst) return { kind: 'asOffered', instance, verdict, status };
    const text = l10n.t('GPU Rental: {0} after its rent: {1}', instanceName(instance), verdict.text);
    const notice: Notice<HealthAction> = {
      severity: 'warning',
      text: sentences(text, costSoFar(instance, deps.now()), l10n.t('Destroy it now, in its first minutes, so that it bills no longer?')),
      actions: ['destroy'],
    };
    return { kind: 'finding', instance, verdict, status, notice };
  }
}

/** How much of the reason a "not checked yet" status quotes. */
export const STATUS_WHY_CHARS = 60;
/** Nodes with a finding that a cluster's notice names one by one; more are counted. */
export const LISTED_NODES = 3;
/** How much of each named node's verdict a cluster's notice quotes. */
const NODE_VERDICT_CHARS = 400;

/** "2× RTX 4090 as offered", or "2× RTX 4090 not as offered": what the status bar shows. */
export function shortVerdict(verdict: Verdict): string {
  if (!verdict.matches) return l10n.t('{0}: not as offered', verdict.offered);
  if (vramUnchecked(verdict)) return l10n.t('{0}: VRAM not checked', verdict.offered);
  return verdict.findings.some((f) => f.level === 'warning')
    ? l10n.t('{0} as offered, with warnings', verdict.offered)
    : l10n.t('{0} as offered', verdict.offered);
}

/** A cluster's results as one status line, and one warning when a node has a finding. */
export function nodesSummary(results: readonly AfterRentResult[], nowMs: number): NodesResult {
  const asOffered = results.filter((r) => r.kind === 'asOffered').length;
  const findings = results.filter((r) => r.kind === 'finding');
  const unchecked = results.filter((r) => r.kind === 'notChecked');
  // A node not checked yet is neither as offered nor not: the line counts the checked ones apart.
  const checked = results.length - unchecked.length;
  const status =
    unchecked.length === 0
      ? l10n.t('cluster health: {0} of {1} nodes as offered', asOffered, results.length)
      : checked === 0
        ? l10n.t('cluster health: {0} nodes not checked yet', unchecked.length)
        : l10n.t('cluster health: {0} of {1} checked nodes as offered, {2} not checked yet', asOffered, checked, unchecked.length);
  if (findings.length === 0) return { results, status };
  const lines = findings
    .slice(0, LISTED_NODES)
    .map((r) =>
      sentences(
        l10n.t('{0}: {1}', instanceName(r.instance), visibleText(r.verdict.text, NODE_VERDICT_CHARS)),
        costSoFar(r.instance, nowMs),
      ),
    );
  const notice: Notice = {
    severity: 'warning',
    text: sentences(
      l10n.t('GPU Rental: health of the cluster after its rent: {0} of {1} nodes as offered.', asOffered, results.length),
      ...lines,
      findings.length > LISTED_NODES && l10n.t('More nodes with a finding: {0}.', findings.length - LISTED_NODES),
      l10n.t('Check Machine Health on a node offers to destroy it.'),
    ),
  };
  return { results, status, notice };
}

function prune(all: Record<string, PendingCheck>, now: number): Record<string, PendingCheck> {
  return Object.fromEntries(Object.entries(all).filter(([, e]) => now - e.since < EXPECT_MS));
}
