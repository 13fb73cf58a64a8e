// The rest of the extension: dist/main.js, which the activation chunk (src/extension.ts) loads on
// first use: a view shown, a command run, a link opened, a panel restored, or the start-up work a
// moment after activation. First: the messages of every module below follow VS Code's display language.
import './ui/l10n';
import * as vscode from 'vscode';
import { COMMAND_IDS } from './core/ids';
import { agentTools } from './ui/commands/tools/tools';
import { allCommands, sharedDeps } from './ui/commands/index';
import { Services } from './ui/services';
import type { LoadedMain, ShellParts } from './ui/shell/parts';
import { testApi } from './ui/testApi';

/**
 * Builds the extension's objects, takes over the views the activation chunk created, and starts
 * the start-up work (the key, unsettled rents). `reason` and `loadMs` are for the log.
 */
export function start(context: vscode.ExtensionContext, shell: ShellParts, reason: string, loadMs: number): LoadedMain {
  const started = performance.now();
  const services = new Services(context, shell);
  const shared = sharedDeps(services);
  const commands = allCommands(services, shared);
  const tools = agentTools({
    session: services.session,
    poller: services.poller,
    jobs: services.jobs,
    priceContext: services.priceContext,
    logger: services.logger,
    rent: shared.rent,
    transfer: shared.transfer,
    instances: shared.instances,
    health: shared.health,
    jobCommands: shared.jobs,
  });
  const missing = COMMAND_IDS.filter((id) => !commands.has(id));
  if (missing.length > 0) services.logger.error(`Commands without a body: ${missing.join(', ')}`);
  // Reading the key and asking the service about it happen after this returns.
  void services.start().catch((error: unknown) => services.logger.error(`Start-up failed: ${String(error)}`));
  const { moduleMs, apiMs, activateMs } = shell.activation;
  services.logger.info(
    `Activated in ${(moduleMs + activateMs).toFixed(1)} ms: module ${moduleMs.toFixed(1)} ms (VS Code's API object ${apiMs.toFixed(1)} ms of it) + activate() ${activateMs.toFixed(1)} ms (GPU Rental ${String(context.extension.packageJSON.version)}, VS Code ${vscode.version}, language ${vscode.env.language}).`,
  );
  services.logger.info(
    `Loaded the rest on first use (${reason}): module ${loadMs.toFixed(1)} ms + start ${(performance.now() - started).toFixed(1)} ms.`,
  );
  return {
    commands,
    tools,
    uriHandler: services.links,
    restoreExplorer: (panel) => services.explorer.restore(panel),
    test: testApi(services),
    dispose: () => services.dispose(),
  };
}
