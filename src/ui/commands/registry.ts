import * as vscode from 'vscode';
import type { CommandId } from '../../core/ids';
import type { Logger } from '../../core/log';
import type { ShowError } from './errors';

/** One command: its id (from COMMANDS) and what it does. What `run` resolves with is the command's result. */
export interface CommandDefinition {
  readonly id: CommandId;
  readonly run: (...args: never[]) => unknown;
}

/** A command definition, typed by its arguments where it is written. */
export function command<A extends unknown[]>(id: CommandId, run: (...args: A) => unknown): CommandDefinition {
  return { id, run };
}

/** What the one error guard needs. */
export interface CommandGuard {
  readonly logger: Logger;
  /** Shows an error that escaped a command, with the button that fixes it. */
  readonly showError: ShowError;
}

/**
 * The one place commands are registered (lint forbids `registerCommand` anywhere else). Each
 * command is logged when invoked, by id only (its arguments can carry a key), and wrapped in the
 * one error guard: a failure that escapes it becomes the message with its fix, and the command
 * resolves undefined. A command that shows a more specific message itself keeps doing so.
 */
export function registerCommands(definitions: readonly CommandDefinition[], guard: CommandGuard): vscode.Disposable[] {
  return definitions.map(({ id, run }) => {
    const body = run as (...args: unknown[]) => unknown;
    return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      guard.logger.debug(`Command ${id}`);
      try {
        return await body(...args);
      } catch (error) {
        guard.showError(error);
        return undefined;
      }
    });
  });
}
