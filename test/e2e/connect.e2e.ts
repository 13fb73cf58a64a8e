import { expect } from './expect';
import { openWorkbench, type Workbench } from './workbench';

const KEY = 'e2e-connect-key-81f0d2';

/** The simulator's API, as a second client: the instance is rented there, connect is what is tested. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the simulator's JSON, read by two lines below
async function api(wb: Workbench, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${wb.sim.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}`);
  return res.json();
}

describe('connect: one click to a shell on the instance (code-server has no Remote-SSH, so the terminal fallback)', () => {
  let wb: Workbench;
  before(async () => {
    wb = await openWorkbench({ key: KEY, bootSeconds: 2, env: { GPU_RENTAL_API_KEY: KEY } });
    const { offers } = await api(wb, 'POST', '/api/v0/bundles/', {
      rentable: { eq: true },
      order: [['dph_total', 'asc']],
      limit: 1,
      type: 'on-demand',
    });
    await api(wb, 'PUT', `/api/v0/asks/${offers[0].id}/`, {
      client_id: 'me',
      image: 'pytorch/pytorch:latest',
      disk: 16,
      label: 'e2e-connect',
    });
    await wb.openSidebar();
  });
  after(() => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb.shot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`);
      await wb.runCommand('Notifications: Show Notifications');
      await wb.shot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}-notifications`);
    }
  });

  it('clicks Connect on the running instance, creates a key after asking, and offers the SSH terminal', async () => {
    const row = wb
      .section('Instances')
      .locator('.monaco-list-row')
      .filter({ hasText: /e2e-connect/ })
      .filter({ hasText: /running/ });
    await expect(row).toBeVisible();
    await row.hover();
    await row.locator('.action-label[aria-label^="Connect"]').click();
    const dialog = wb.page.locator('.monaco-dialog-box');
    await expect(dialog.getByText('No SSH key found. Create one?')).toBeVisible();
    await wb.shot('e2e-connect-key', true);
    await dialog.getByRole('button', { name: 'Create Key' }).click();
    // The toast may already have hidden behind the closing dialog; the notification center keeps it.
    const offer = await wb.notificationInCenter(/no Remote-SSH extension is installed/);
    await expect(offer).toBeVisible();
    await wb.shot('e2e-connect-no-remote-ssh', true);
    await offer.getByRole('button', { name: 'Open SSH Terminal' }).click();
  });

  it('opens a terminal running ssh on the alias; a command typed there runs on the instance', async () => {
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
});
