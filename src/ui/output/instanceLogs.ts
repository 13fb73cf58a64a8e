import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { COMMANDS } from '../../core/ids';
import { followLog, type FollowEnd } from '../../core/instances/logFollow';
import { instancePhase } from '../../core/instances/phase';
import { instanceName } from '../../core/instances/names';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';

/**
 * Instance logs in this window: one output channel per instance (Show Instance Logs writes into
 * it), and the logs followed into those channels (Follow Instance Logs).
 */

/** One output channel per instance for its log, reused each time it is shown; disposed with the extension. */
export class InstanceLogChannels implements vscode.Disposable {
  private readonly channels = new Map<number, vscode.OutputChannel>();

  for(id: number): vscode.OutputChannel {
    let channel = this.channels.get(id);
    if (!channel) {
      channel = vscode.window.createOutputChannel(vscode.l10n.t('GPU Rental: Instance #{0}', id));
      this.channels.set(id, channel);
    }
    return channel;
  }

  dispose(): void {
    this.channels.forEach((c) => c.dispose());
  }
}

/** What following a log uses. */
export interface LogFollowDeps {
  readonly session: Pick<Session, 'client'>;
  readonly poller: Pick<InstancePoller, 'snapshot' | 'refresh'>;
  readonly logChannels: InstanceLogChannels;
  readonly logger: Logger;
}

/** What a followed log showed, for the tests: its lines (GPU Rental's notes included) and how following ended. */
export interface FollowedLog {
  readonly lines: readonly string[];
  readonly following: boolean;
  /** Why it ended, once it has: stopped (the instance), cancelled (the user), failed (reads kept failing). */
  readonly end?: FollowEnd;
}

/** The most lines kept per followed log for the tests; the output channel itself keeps them all. */
const KEPT_LINES = 5_000;
/** How old the instance list may be when following checks the instance still runs. */
const STALE_LIST_MS = 30_000;

/**
 * The logs followed in this window: one follower per instance, writing into that instance's
 * output channel (the one Show Instance Logs uses), which scrolls as lines arrive. Running Follow
 * Instance Logs again on a followed instance stops following it.
 */
export class LogFollowers implements vscode.Disposable {
  private readonly running = new Map<number, AbortController>();
  private readonly seen = new Map<number, { lines: string[]; end?: FollowEnd }>();

  constructor(private readonly s: LogFollowDeps) {}

  /** Whether instance `id`'s log is being followed. */
  following(id: number): boolean {
    return this.running.has(id);
  }

  /** What the followed log of `id` showed, undefined when it was never followed in this window. */
  snapshot(id: number): FollowedLog | undefined {
    const seen = this.seen.get(id);
    return seen && { lines: [...seen.lines], following: this.running.has(id), end: seen.end };
  }

  /** Starts following; resolves when following ends (the instance stopped, the user stopped it, or reads failed). */
  async follow(instance: Instance): Promise<FollowEnd> {
    const { id } = instance;
    const name = instanceName(instance);
    const controller = new AbortController();
    this.running.set(id, controller);
    const record: { lines: string[]; end?: FollowEnd } = { lines: [] };
    this.seen.set(id, record);
    const channel = this.s.logChannels.for(id);
    channel.clear();
    channel.show(true);
    const write = (line: string) => {
      channel.appendLine(line);
      record.lines.push(line);
      if (record.lines.length > KEPT_LINES) record.lines.splice(0, record.lines.length - KEPT_LINES);
    };
    const note = (text: string) => write(vscode.l10n.t('[GPU Rental] {0}', text));
    note(
      vscode.l10n.t(
        'following the log of {0}: new lines appear here every few seconds. Click "Log #{1}" in the status bar, or run Follow Instance Logs again, to stop.',
        name,
        id,
      ),
    );
    // A status bar item while following, which stops it when clicked (an output channel cannot say it was closed).
    const item = vscode.window.createStatusBarItem(`gpuRental.followedLog.${id}`, vscode.StatusBarAlignment.Left, 40);
    item.name = vscode.l10n.t('GPU Rental: Followed Log of #{0}', id);
    item.text = vscode.l10n.t('$(sync~spin) Log #{0}', id);
    item.tooltip = vscode.l10n.t('GPU Rental: following the log of {0}. Click to stop following.', name);
    item.accessibilityInformation = {
      label: vscode.l10n.t('GPU Rental: following the log of {0}. Activate to stop following.', name),
      role: 'button',
    };
    item.command = { title: vscode.l10n.t('Stop Following'), command: COMMANDS.followInstanceLogs, arguments: [id] };
    item.show();
    const result = await followLog(
      {
        read: (tail, signal) => this.s.session.client.instances.logs(id, { tail }, { signal }),
        stillRunning: async () => {
          // The poller's list is used while it is recent and has the instance; it polls more slowly when no view shows.
          const listed = () => this.s.poller.snapshot?.instances.find((i) => i.id === id);
          const at = this.s.poller.snapshot?.at ?? 0;
          if (Date.now() - at > STALE_LIST_MS || !listed()) await this.s.poller.refresh();
          const now = listed();
          return now !== undefined && instancePhase(now) === 'running';
        },
        append: (lines, text) => {
          if (text) note(text);
          lines.forEach(write);
        },
        wait: (ms, signal) => abortableDelay(ms, signal),
        onRetry: (error) => this.s.logger.warn(`Reading the log of ${name} failed; trying again: ${String(error)}`),
      },
      controller.signal,
    ).finally(() => {
      this.running.delete(id);
      item.dispose();
    });
    record.end = result.end;
    const why = {
      stopped: vscode.l10n.t('{0} is no longer running, so its log does not grow.', name),
      cancelled: vscode.l10n.t('you stopped it.'),
      failed: vscode.l10n.t(
        'the log could not be read three times in a row ({0}).',
        result.error instanceof Error ? result.error.message : String(result.error),
      ),
    }[result.end];
    note(vscode.l10n.t('stopped following: {0}', why));
    if (result.end === 'stopped') {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('GPU Rental: stopped following the log of {0}: it is no longer running.', name),
      );
    } else if (result.end === 'failed') {
      this.s.logger.warn(`Stopped following the log of ${name}: ${String(result.error)}`);
      void vscode.window
        .showWarningMessage(
          vscode.l10n.t('GPU Rental: stopped following the log of {0}: {1} Follow it again once the service answers.', name, why),
          vscode.l10n.t('Follow Again'),
        )
        .then((c) => {
          if (c) void vscode.commands.executeCommand(COMMANDS.followInstanceLogs, id);
        });
    }
    return result.end;
  }

  /** Stops following `id`; true when it was followed. */
  stop(id: number): boolean {
    const controller = this.running.get(id);
    controller?.abort();
    return controller !== undefined;
  }

  dispose(): void {
    this.running.forEach((c) => c.abort());
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
