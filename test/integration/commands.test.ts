import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMAND_IDS } from '../../src/core/ids';
import { eventually, extensionApi, extensionLog, signIn } from './support';

describe('commands', () => {
  it('registers every command in src/core/ids', async () => {
    await extensionApi();
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const id of COMMAND_IDS) assert.ok(registered.has(id), `${id} is registered`);
  });

  it('refresh reloads the account and both views', async () => {
    const x = await signIn();
    await vscode.commands.executeCommand('gpuRental.refresh');
    assert.equal(x.services.session.state.kind, 'ready');
    assert.ok((await x.services.offersView.getChildren()).length > 0);
  });

  it('show logs opens the GPU Rental channel without error', async () => {
    await vscode.commands.executeCommand('gpuRental.showLogs');
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
