import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO } from '../../scripts/paths';
import { eventually } from '../support/eventually';
import { rentOne } from '../support/http';
import { expect } from './expect';
import { SCREENSHOTS, workbenchForSuite, type Workbench } from './workbench';

/** Processes of this machine running the VS Code server an instance installed (instances are this machine's processes, in namespaces). */
function instanceServers(): string[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        return cmd.includes('.local/share/gpu-rental/code-server/') ? [d] : [];
      } catch {
        return [];
      }
    });
}

describe('connect: one click to a shell, or to a VS Code served by the instance (code-server has no Remote-SSH)', function () {
  this.timeout(240_000);
  // The instance is rented through the API, as a second client would: connect is what is tested.
  const workbench = workbenchForSuite({
    settings: { 'gpuRental.remoteFolder': '/workspace' },
    prepare: async (wb) => {
      writeFileSync(join(wb.folder, 'train.py'), 'print("hello from the workspace")\n');
      mkdirSync(join(wb.folder, 'data'));
      writeFileSync(join(wb.folder, 'data', 'notes.txt'), 'notes\n');
      await rentOne(wb.sim, { image: 'pytorch/pytorch:latest', disk: 16, label: 'e2e-connect' });
    },
  });
  let browserPage: Page | undefined;

  it('clicks Connect on the running instance, creates a key after asking, and offers the SSH terminal', async () => {
    const wb = workbench();
    const row = wb.rows('Instances', /e2e-connect/).filter({ hasText: /running/ });
    await expect(row).toBeVisible();
    await row.hover();
    await row.locator('.action-label[aria-label^="Connect"]').click();
    const dialog = wb.dialog();
    // A click that lands while the row is drawn again (its uptime ticks) reaches Connect without the
    // row, and Connect then asks which instance, as from the palette: the same instance is picked.
    const asked = wb.quickInput().getByText('Connect to which instance?');
    await dialog.getByText('No SSH key found. Create one?').or(asked).first().waitFor({ timeout: 20_000 });
    if (await asked.isVisible()) await wb.pick(/e2e-connect/);
    await expect(dialog.getByText('No SSH key found. Create one?')).toBeVisible();
    await wb.shot('e2e-connect-key', true);
    await dialog.getByRole('button', { name: 'Create Key' }).click();
    // The toast may already have hidden behind the closing dialog; the notification center keeps it.
    const offer = await wb.notificationInCenter(/no Remote-SSH extension is installed/);
    await expect(offer).toBeVisible();
    await wb.shot('e2e-connect-no-remote-ssh', true);
    // The wait for SSH is over once the handoff is offered: its progress leaves the center.
    await expect(
      wb.page.locator('.notifications-center .notification-list-item').filter({ hasText: /waiting for SSH/ }),
      10_000,
    ).toBeHidden();
    await offer.getByRole('button', { name: 'Open SSH Terminal' }).click();
  });

  it('opens a terminal running ssh on the alias; a command typed there runs on the instance', async () => {
    const wb = workbench();
    const terminal = wb.page.locator('.terminal-wrapper.active .xterm');
    await expect(terminal).toBeVisible();
    await expect(
      wb.page
        .locator('.terminal-tabs-entry, .single-terminal-tab, .terminal-tab')
        .filter({ hasText: /e2e-connect/ })
        .first(),
    ).toBeVisible();
    // Wait for the remote shell's prompt, then type into it.
    await expect(terminal.locator('.xterm-rows')).toContainText(/[#$]\s*$/m);
    await terminal.click();
    await wb.page.keyboard.type('echo "remote says $((6*7)) over $SSH_CONNECTION"');
    await wb.page.keyboard.press('Enter');
    await expect(terminal.locator('.xterm-rows')).toContainText(/remote says 42 over 127\.0\.0\.1 \d+ 127\.0\.0\.1 \d+/);
    await wb.shot('e2e-connect-terminal', true);
  });

  it('uploads the workspace, then Connect offers Open in Browser: a VS Code served by the instance opens in a second page, its Explorer listing the uploaded files', async () => {
    const wb = workbench();
    const row = wb.rows('Instances', /e2e-connect/).filter({ hasText: /running/ });
    await wb.contextMenu(row, 'Upload Folder to Instance…');
    await expect(wb.quickInput().getByText(/The folder on the instance that will hold the files/)).toBeVisible();
    // On the input itself: the SSH terminal opened before may still hold the keyboard.
    await wb.quickInput().locator('input').press('Enter');
    await expect(await wb.notificationInCenter(/uploaded .* to \/workspace\/.*: 2 files/), 60_000).toBeVisible();
    await wb.runCommand('Notifications: Clear All Notifications');

    await row.hover();
    await row.locator('.action-label[aria-label^="Connect"]').click();
    const offer = await wb.notificationInCenter(/no Remote-SSH extension is installed/);
    await expect(offer).toBeVisible();
    // The instance's VS Code draws its terminal rows as text, as the e2e window's own does, so the
    // test can read them: its user settings, written into the instance's filesystem beforehand.
    const settings = onInstance(await instanceId(wb), '/root/.local/share/gpu-rental/code-server/data/User/settings.json');
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(settings, '{ "terminal.integrated.gpuAcceleration": "off" }\n');
    const opened = wb.page.context().waitForEvent('page', { timeout: 120_000 });
    await offer.getByRole('button', { name: 'Open in Browser' }).click();
    const page = (browserPage = await opened);
    // The instance installs code-server from the simulator's mirror, starts it, and the one-time
    // page signs in: the second page ends on the forwarded server with the folder open.
    await page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
    // The server on an origin of its own (the forwarded port), not under the editor's: two
    // workbenches on one origin share the browser's storage.
    assert.match(page.url(), /^http:\/\/127\.0\.0\.1:\d+\/\?folder=%2Fworkspace$/);
    assert.notEqual(new URL(page.url()).origin, new URL(wb.page.url()).origin);
    const folder = basename(wb.folder);
    const explorer = page.locator('.explorer-folders-view');
    await expect(explorer.getByText(folder, { exact: true }), 60_000).toBeVisible();
    await explorer.getByText(folder, { exact: true }).click();
    await expect(explorer.getByText('train.py')).toBeVisible();
    await expect(explorer.getByText('data', { exact: true })).toBeVisible();
    await expect(wb.statusBar(/e2e-connect/)).toBeVisible();
  });

  it('a terminal in that VS Code runs on the instance, and a file saved there is in the instance’s filesystem', async () => {
    const wb = workbench();
    const page = browserPage!;
    await page.locator('.explorer-folders-view').getByText('train.py').click();
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await expect(editor).toBeVisible();
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('# saved from the browser');
    await page.keyboard.press('Control+S');
    await expect(page.locator('.tab.active.dirty')).toBeHidden();

    await page.keyboard.press('Control+Backquote');
    // A new folder opens in Restricted Mode: a terminal asks whether the user trusts it, as it would anyone.
    await page.getByRole('button', { name: 'Trust Folder & Continue' }).click();
    const terminal = page.locator('.terminal-wrapper.active .xterm');
    await expect(terminal.locator('.xterm-rows'), 60_000).toContainText(/[#$]\s*$/m);
    const id = await instanceId(wb);
    // Typed into the terminal's own input; keys that land while it is still taking focus (a busy
    // machine) are lost, so the line is typed again until its answer shows.
    const rows = terminal.locator('.xterm-rows');
    for (let attempt = 1; ; attempt++) {
      await terminal.locator('textarea.xterm-helper-textarea').focus();
      await page.keyboard.type('echo "host is $(hostname)"');
      await page.keyboard.press('Enter');
      const shown = await expect(rows, 10_000)
        .toContainText(new RegExp(`host is c-${id}\\b`))
        .then(
          () => true,
          (error: unknown) => {
            if (attempt >= 3) throw error;
            return false;
          },
        );
      if (shown) break;
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'e2e-browser-workspace.png') });
    await page.screenshot({ path: join(REPO, 'media', 'screenshots', 'e2e-browser-workspace.png') });

    const saved = readFileSync(onInstance(id, `/workspace/${basename(wb.folder)}/train.py`), 'utf8');
    assert.match(saved, /^# saved from the browser$/m);
  });

  it('Close Browser Workspace ends the server on the instance and the forward here', async () => {
    const wb = workbench();
    const port = Number(new URL(browserPage!.url()).port);
    assert.ok(instanceServers().length > 0, 'the server runs on the instance');
    await wb.runCommand('GPU Rental: Close Browser Workspace');
    await expect(await wb.notificationInCenter(/is closed, and its VS Code server stopped/), 30_000).toBeVisible();
    await eventually(() => (instanceServers().length === 0 ? true : undefined), 'the server on the instance has ended', 15_000);
    const refused = await fetch(`http://127.0.0.1:${port}/`).then(
      () => false,
      () => true,
    );
    assert.ok(refused, 'nothing listens on the forwarded port');
    await browserPage!.close();
  });
});

/** The id of the suite's instance, as the simulator has it. */
async function instanceId(wb: Workbench): Promise<number> {
  const res = await fetch(`${wb.sim.url}/api/v0/instances/`, { headers: { authorization: `Bearer ${wb.sim.apiKey}` } });
  const body = (await res.json()) as { instances: Array<{ id: number; label: string | null }> };
  return body.instances.find((i) => i.label === 'e2e-connect')!.id;
}

/**
 * A path inside instance `id`, as this machine sees it: the simulator keeps each running instance's
 * /root and /workspace under <tmp>/gpu-rental-sim-XXXXXX/<id>/fs (test/marketplace/README.md); the
 * newest simulator's is this suite's.
 */
function onInstance(id: number, path: string): string {
  const stores = readdirSync(tmpdir())
    .filter((n) => n.startsWith('gpu-rental-sim-'))
    .map((n) => join(tmpdir(), n, String(id), 'fs'))
    .filter((d) => existsSync(d))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!stores[0]) throw new Error(`no store of instance #${id} under ${tmpdir()}`);
  return join(stores[0], path);
}
