import * as vscode from 'vscode';
import { ToolError, sessionProblem, toolErrors } from '../../../core/agent/errors';
import type { ToolConfirmation } from '../../../core/agent/confirm';
import type { Instance } from '../../../core/api/instances';
import type { Logger } from '../../../core/log';
import type { Session } from '../../../core/session/session';
import { visibleText } from '../../../core/text';
import type { TargetDeps } from '../instances';

/** One tool as VS Code calls it; its input is read by core's readers, never trusted as typed. */
export type ToolImpl = vscode.LanguageModelTool<unknown>;

/** A tool's body: the input, an abort signal tied to the call's token; resolves with the result text. */
export interface ToolBody {
  /** VS Code's confirmation (for a tool that spends, changes or sends) and the progress message. */
  prepare?(input: unknown, signal: AbortSignal): Promise<{ message: string; confirmation?: ToolConfirmation }>;
  invoke(input: unknown, signal: AbortSignal): Promise<string>;
}

/** The result VS Code hands the model: one text part. */
export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

function signalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const subscription = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => subscription.dispose() };
}

/**
 * What a failure says to the model. A ToolError says what happened and what to try; any other
 * error (the service's answer, ssh) is logged and passed on as its message, shown through
 * visibleText: it may quote the service or a machine.
 */
function forModel(error: unknown, name: string, logger: Logger): Error {
  if (error instanceof ToolError || error instanceof vscode.CancellationError) return error;
  const message = error instanceof Error ? error.message : String(error);
  logger.warn(`Tool ${name} failed: ${message}`);
  return new ToolError(visibleText(message, 600));
}

/**
 * A tool as VS Code calls it: the body's result text, its failures as errors with a message for
 * the model (VS Code passes a thrown error's message on as the failed call's result), its
 * confirmation as prepareInvocation's. Logged by name only: the input may hold a path or a command.
 */
export function tool(name: string, body: ToolBody, logger: Logger): ToolImpl {
  const prepare = body.prepare;
  return {
    async invoke(options, token) {
      logger.debug(`Tool ${name}`);
      const call = signalOf(token);
      try {
        return textResult(await body.invoke(options.input, call.signal));
      } catch (error) {
        throw forModel(error, name, logger);
      } finally {
        call.dispose();
      }
    },
    ...(prepare && {
      async prepareInvocation(options, token) {
        const call = signalOf(token);
        try {
          const prepared = await prepare(options.input, call.signal);
          return {
            invocationMessage: prepared.message,
            ...(prepared.confirmation && { confirmationMessages: prepared.confirmation }),
          };
        } catch (error) {
          throw forModel(error, name, logger);
        } finally {
          call.dispose();
        }
      },
    }),
  };
}

/** Refuses when the session cannot ask the account (no key, a refused key, no service): the model is told what to do. */
export function ensureSession(session: Pick<Session, 'state'>): void {
  const problem = sessionProblem(session.state.kind);
  if (problem) throw new ToolError(problem);
}

/** The instance with this id, from the last poll or the service; an id not in the account says how to find one. */
export async function instanceById(s: TargetDeps, id: number, signal?: AbortSignal): Promise<Instance> {
  const known = s.poller.snapshot?.instances.find((i) => i.id === id);
  if (known) return known;
  try {
    return await s.session.client.instances.show(id, { signal });
  } catch (error) {
    if ((error as { kind?: unknown } | null)?.kind === 'not_found') throw toolErrors.instanceNotFound(id);
    throw error;
  }
}
