import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import { instancePhase } from '../../core/instances/phase';
import { instanceName } from '../../core/instances/names';
import type { Logger } from '../../core/log';
import type { LogFollowers } from '../output/instanceLogs';
import { command, type CommandDefinition } from '../registry';
import { resolveTarget, type TargetDeps } from './instances';

/** What Follow Instance Logs uses: the followers of this window (src/ui/output/instanceLogs.ts). */
export interface LogCommandDeps extends TargetDeps {
  readonly followers: LogFollowers;
  readonly logger: Logger;
}

/**
 * Follow Instance Logs: starts following a running instance's log, or stops following it when it
 * is followed already. Resolves at once with what it did ("following" or "stopped"), not when
 * following ends.
 */
export function logCommands(s: LogCommandDeps): CommandDefinition[] {
  return [
    command(COMMANDS.followInstanceLogs, async (t?: Parameters<typeof resolveTarget>[1]) => {
      if (typeof t === 'number' && s.followers.following(t)) return stopFollowing(s.followers, t);
      const instance = await resolveTarget(s, t, vscode.l10n.t('Follow the log of which instance?'), ['running']);
      if (!instance) return undefined;
      if (s.followers.stop(instance.id)) return stopFollowing(s.followers, instance.id);
      if (instancePhase(instance) !== 'running') {
        void vscode.window.showWarningMessage(
          vscode.l10n.t(
            'GPU Rental: {0} is {1}, so its log does not grow. Show Instance Logs shows what it wrote.',
            instanceName(instance),
            instancePhase(instance),
          ),
        );
        return undefined;
      }
      void s.followers.follow(instance).catch((error: unknown) => s.logger.error(`Following the log failed: ${String(error)}`));
      return 'following';
    }),
  ];
}

function stopFollowing(followers: LogFollowers, id: number): 'stopped' {
  followers.stop(id);
  return 'stopped';
}
