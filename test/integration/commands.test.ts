import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMAND_IDS } from '../../src/core/ids';
import { eventually, extensionApi, extensionLog, signIn } from './support';

/** Editors showing the GPU Rental output channel: VS Code opens a channel as a document with an `output:` URI naming it. */
const logEditors = () =>
  vscode.window.visibleTextEditors.filter(
    (e) => e.document.uri.scheme === 'output' && decodeURIComponent(e.document.uri.toString()).includes('GPU Rental'),
  );
const visibleUris = () => vscode.window.visibleTextEditors.map((e) => e.document.uri.toString()).join(', ') || 'none';

describe('commands', () => {
  it('registers every command in src/core/ids', async () => {
    await extensionApi();
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const id of COMMAND_IDS) assert.ok(registered.has(id), `${id} is registered`);
  });

  it('refresh reloads the account and both views', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.refresh');
    assert.equal(x.test.session().state, 'ready');
    assert.ok((await x.test.offerItems()).length > 0);
  });

  it('show logs brings the GPU Rental channel into view', async () => {
    await extensionApi();
    /** Waits for `check`, naming the editors visible then if it never holds. */
    const waitFor = <T>(check: () => T | false, what: string) =>
      eventually(check, what).catch((error: unknown) => {
        throw new Error(`${(error as Error).message} (visible editors: ${visibleUris()})`);
      });
    // Hidden first, so that only the command can have shown it.
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await waitFor(() => logEditors().length === 0, 'the log to be hidden');
    await vscode.commands.executeCommand('gpuRental.showLogs');
    const editor = await waitFor(() => logEditors()[0] ?? false, 'the GPU Rental channel to be visible');
    assert.match(editor.document.getText(), /Activated in \d+\.\d ms/, 'it shows the extension log');
  });

  it('logs its activation time', async () => {
    const x = await extensionApi();
    const log = await eventually(async () => {
      const text = await extensionLog();
      return /Activated in \d+\.\d ms/.test(text) ? text : undefined;
    }, 'the activation line in the log');
    assert.ok(log.includes('GPU Rental'));
    assert.ok(x.activationMs > 0 && Number.isFinite(x.activationMs));
  });
});
