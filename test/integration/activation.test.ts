import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';

// The publisher.name id from package.json; this suite needs no simulator.
const EXTENSION_ID = 'gpu-rental.gpu-rental';

interface Manifest {
  contributes?: { commands?: Array<{ command: string }> };
}

/**
 * What the window did by itself. A root hook runs before every suite's hooks and tests, so nothing
 * here (no activate(), command or view) can have activated the extension while it waits.
 */
const startup: { activeWhenSuitesBegan?: boolean; activeAfterMs?: number } = {};
before(async function () {
  this.timeout(40_000);
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) return;
  startup.activeWhenSuitesBegan = ext.isActive;
  const since = Date.now();
  while (!ext.isActive && Date.now() - since < 30_000) await new Promise((r) => setTimeout(r, 100));
  if (ext.isActive) startup.activeAfterMs = Date.now() - since;
});

/** Every .log file under the extension host's log folder: its own log and the host's. */
function logs(dir: string): string {
  let text = '';
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) text += logs(path);
    else if (e.name.endsWith('.log')) text += `${readFileSync(path, 'utf8')}\n`;
  }
  return text;
}

describe('activation at startup', () => {
  // A Remote-SSH window opened by Connect must run the extension without a click, to write the
  // heartbeat that keeps other windows' idle countdowns off its instance.
  it('is activated by VS Code on onStartupFinished, with no view, command or activate() call', () => {
    assert.ok(startup.activeAfterMs !== undefined, 'active within 30 s of the suites starting, with nothing asking for it');
    const ext = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID)!;
    const text = logs(ext.exports.logDir);
    // The extension host logs each activation with its reason (ExtensionService#_doActivateExtension).
    const reasons = [...text.matchAll(/_doActivateExtension gpu-rental\.gpu-rental, startup: \w+, activationEvent: '([^']+)'/g)].map(
      (m) => m[1],
    );
    assert.deepEqual(
      reasons,
      ['onStartupFinished'],
      `activation reasons in the host log (active when the suites began: ${String(startup.activeWhenSuitesBegan)}, after ${startup.activeAfterMs ?? '-'} ms)`,
    );
  });
});

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
