import * as vscode from 'vscode';
import type { CommandId } from '../core/ids';
import type { Logger } from '../core/log';

/** One command: its id (from COMMANDS) and what it does. What `run` resolves with is the command's result. */
/** Shows an error that escaped a command; resolves nothing, so the command that failed finishes at once (src/ui/commands/errors.ts). */
export type ShowError = (error: unknown) => void;

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
 * Every command's body wrapped as the extension runs it: logged when invoked, by id only (its
 * arguments can carry a key), and inside the one error guard: a failure that escapes it becomes
 * the message with its fix, and the command resolves undefined. A command that shows a more
 * specific message itself keeps doing so. The stubs below call these.
 */
export function commandHandlers(
  definitions: readonly CommandDefinition[],
  guard: CommandGuard,
): Map<CommandId, (...args: unknown[]) => Promise<unknown>> {
  return new Map(
    definitions.map(({ id, run }) => {
      const body = run as (...args: unknown[]) => unknown;
      const handler = async (...args: unknown[]) => {
        guard.logger.debug(`Command ${id}`);
        try {
          return await body(...args);
        } catch (error) {
          guard.showError(error);
          return undefined;
        }
      };
      return [id, handler] as const;
    }),
  );
}

/**
 * The one place commands are registered (lint forbids `registerCommand` anywhere else), in
 * activate(): each id gets a stub that finds its body on first use (`body` loads the rest of the
 * extension, src/ui/shell/shell.ts), so activating does not load the commands' code.
 */
export function registerCommandStubs(
  ids: readonly CommandId[],
  body: (id: CommandId) => ((...args: unknown[]) => unknown) | undefined,
): vscode.Disposable[] {
  return ids.map((id) =>
    vscode.commands.registerCommand(id, (...args: unknown[]) => {
      const run = body(id);
      return run ? run(...args) : undefined;
    }),
  );
}
