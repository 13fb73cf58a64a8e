// A cloned repository's .vscode/settings.json must not weaken a money or identity safeguard. The
// workspace file below tries to lift the spend cap, turn idle stop off, point the extension at
// another service and key; a window-scoped setting in the same file shows VS Code did read it.
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { config } from '../../src/ui/host/config';
import { eventually, extensionApi, setApiUrl, sim } from './support';

const setUser = (key: string, value: unknown) => vscode.workspace.getConfiguration().update(key, value, vscode.ConfigurationTarget.Global);

describe('trust: a workspace cannot weaken a money safeguard', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    await extensionApi();
    await setApiUrl(sim.url);
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the run opens a folder');
    dir = join(folder.uri.fsPath, '.vscode');
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    for (const key of ['maxHourlySpend', 'idleStop.minutes', 'idleStop.gpuThreshold']) await setUser(`gpuRental.${key}`, undefined);
  });

  it("reads the user's values and the defaults, never the workspace's", async () => {
    await setUser('gpuRental.maxHourlySpend', 2);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({
        'gpuRental.remoteFolder': '/from-the-workspace',
        'gpuRental.maxHourlySpend': 100_000,
        'gpuRental.idleStop.enabled': false,
        'gpuRental.idleStop.minutes': 10_080,
        'gpuRental.idleStop.gpuThreshold': 100,
        'gpuRental.idleStop.countdownSeconds': 3600,
        'gpuRental.lowCredit.hours': 0,
        'gpuRental.lowCredit.amount': 0,
        'gpuRental.apiUrl': 'http://127.0.0.1:9',
        'gpuRental.ssh.identityFile': '/tmp/someone-elses-key',
        'gpuRental.ssh.connectVia': 'direct',
      }),
    );
    try {
      // The window-scoped setting arrives: VS Code has read the file.
      await eventually(() => config.remoteFolder() === '/from-the-workspace', 'the workspace settings to be read');

      // VS Code itself keeps application-scoped values out of the workspace layer...
      assert.equal(vscode.workspace.getConfiguration().get('gpuRental.maxHourlySpend'), 2);
      assert.equal(vscode.workspace.getConfiguration().get('gpuRental.idleStop.enabled'), true);
      // ...and the extension reads only the user's value or the default.
      assert.equal(config.maxHourlySpend(), 2);
      assert.equal(config.idleStopEnabled(), true);
      assert.equal(config.idleStopMinutes(), 30);
      assert.equal(config.idleGpuThreshold(), 5);
      assert.equal(config.idleCountdownSeconds(), 60);
      assert.equal(config.lowCreditHours(), 24);
      assert.equal(config.lowCreditAmount(), 5);
      assert.equal(config.apiUrl(), sim.url);
      assert.equal(config.sshIdentityFile(), undefined);
      assert.equal(config.sshConnectVia(), 'auto');
      const x = await extensionApi();
      assert.equal(x.test.session().baseUrl, sim.url, 'the session still talks to the service the user chose');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await eventually(() => config.remoteFolder() !== '/from-the-workspace', 'the workspace settings to be gone');
    }
  });

  it('clamps a hand-written idle time bash could not hold to a week', async () => {
    await setUser('gpuRental.idleStop.minutes', 1.6e17);
    await eventually(() => config.idleStopMinutes() !== 30 || undefined, 'the new idle time');
    assert.equal(config.idleStopMinutes(), 10_080);
    await setUser('gpuRental.idleStop.gpuThreshold', 250);
    await eventually(() => config.idleGpuThreshold() !== 5 || undefined, 'the new threshold');
    assert.equal(config.idleGpuThreshold(), 100);
  });
});
