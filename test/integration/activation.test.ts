import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

// The publisher.name id from package.json; this suite needs no simulator.
const EXTENSION_ID = 'gpu-rental.gpu-rental';

interface Manifest {
  contributes?: { commands?: Array<{ command: string }> };
}

describe('activation', () => {
  it(`finds ${EXTENSION_ID} as the extension under development`, () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not among the extensions: ${vscode.extensions.all.map((e) => e.id).join(', ')}`);
  });

  it('activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers every command its package.json contributes', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    const contributed = ((ext.packageJSON as Manifest).contributes?.commands ?? []).map((c) => c.command);
    assert.ok(contributed.length > 0, 'package.json contributes commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      contributed.filter((id) => !registered.has(id)),
      [],
      'contributed commands that are not registered',
    );
  });
});
