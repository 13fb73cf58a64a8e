import * as vscode from 'vscode';
import { COMMANDS, CONTEXT } from '../../core/ids';
import { WalkthroughProgress, type WalkthroughSources, type WalkthroughStep } from '../../core/walkthrough/progress';
import { command, type CommandDefinition } from '../registry';

/** The walkthrough's id in package.json (`contributes.walkthroughs`); VS Code names it `<extension id>#<this>`. */
export const WALKTHROUGH_ID = 'getStarted';

/** The context key each step completes on (package.json's `completionEvents`: `onContext:<key>`). */
const STEP_KEYS: Record<WalkthroughStep, string> = {
  offersListed: CONTEXT.offersListed,
  rented: CONTEXT.rented,
  stopped: CONTEXT.stopped,
};

/** Ticks the Get Started steps (src/core/walkthrough/progress.ts decides when) by setting their context keys. */
export function walkthroughProgress(sources: WalkthroughSources): vscode.Disposable {
  return new WalkthroughProgress(sources, (step) => void vscode.commands.executeCommand('setContext', STEP_KEYS[step], true));
}

/** Get Started: opens the walkthrough, from the palette or the welcome view, before or after sign-in. */
export function walkthroughCommands(deps: { extensionId: string }): CommandDefinition[] {
  return [
    command(COMMANDS.openWalkthrough, () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', `${deps.extensionId}#${WALKTHROUGH_ID}`, false),
    ),
  ];
}
