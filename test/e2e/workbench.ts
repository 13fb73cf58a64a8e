// A real VS Code (code-server) with the packaged extension, in Debian's Chromium, and the helpers
// an e2e test uses to act as a person does: activity bar, tree, palette, quick input, notifications,
// status bar. Every step can save a screenshot.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser } from '../../scripts/browser';
import { startCodeServer, type CodeServer } from '../../scripts/codeServer';
import { packageExtension } from '../../scripts/package';
import { REPO } from '../../scripts/paths';
import { cleanup, trackTempDir } from '../../scripts/processes';
import { DEMO_KEY } from '../support/keys';
import { mirrorDownloadUrl, spawnSimulator, type SimulatorProcess } from '../support/simulator';
import { expect } from './expect';

export const SCREENSHOTS = join(REPO, 'test', 'e2e', 'screenshots');

export interface Workbench {
  page: Page;
  sim: SimulatorProcess;
  server: CodeServer;
  /** The workspace folder the window has open (a fresh temp folder). */
  folder: string;
  /** Saves test/e2e/screenshots/<name>.png (and media/screenshots/<name>.png when `readme`). */
  shot(name: string, readme?: boolean): Promise<void>;
  openSidebar(): Promise<void>;
  section(name: 'Instances' | 'Offers'): Locator;
  /** Clicks an action of a section's title bar, hovering its header (never a row: a row's tooltip covers the bar). */
  titleAction(name: 'Instances' | 'Offers', action: string): Promise<void>;
  /** The rows of a section's tree, those that show `text` when given. */
  rows(section: 'Instances' | 'Offers', text?: string | RegExp): Locator;
  /** The modal dialog (confirmations, the key shown once). */
  dialog(): Locator;
  /** Reloads the window and waits for the workbench to be back. */
  reload(): Promise<void>;
  runCommand(title: string): Promise<void>;
  quickInput(): Locator;
  /** Waits for a row of the open quick pick that shows `text`, and clicks it. */
  pick(text: string | RegExp): Promise<void>;
  /**
   * Opens Rent… on the first priced offer and takes the wizard's defaults (ubuntu:22.04, the
   * proposed disk, SSH, the proposed label, no start-up script), up to the confirmation step.
   */
  rentFirstOfferToConfirmation(): Promise<void>;
  /**
   * Points at an Instances row until its tooltip shows `wanted`: a row drawn again while the hover
   * waits (its running time ticks) cancels the hover, so it points again from elsewhere.
   */
  hoverUntil(row: RegExp, wanted: RegExp): Promise<void>;
  /** Right-clicks `target` and picks `label` from its context menu. */
  contextMenu(target: Locator, label: string): Promise<void>;
  notification(text: string | RegExp): Locator;
  /** Opens the notification center (toasts may already have hidden) and returns the entry. */
  notificationInCenter(text: string | RegExp): Promise<Locator>;
  statusBar(text: string | RegExp): Locator;
  close(): Promise<void>;
}

/**
 * The packaged extension every suite installs: the one `npm test` packaged before the e2e files
 * started (GPU_RENTAL_E2E_VSIX; files run in parallel must not build into dist/ at once), or one
 * packaged here, once per process.
 */
let vsix: string | undefined = process.env.GPU_RENTAL_E2E_VSIX || undefined;

/** An offer row: it shows a price per hour. */
export const PRICED = /\$\d+\.\d+\/h/;

/**
 * Built-in extensions that take no part in what the e2e files drive, left out of their code-server
 * (integration and `npm start` keep every one). Each window load sends the extension host's and the
 * workbench's descriptions of every built-in extension; these are the largest (Copilot's manifest
 * alone is 200 KB) and cost about 6 of the 30 CPU-s a load takes on the 2-core machine
 * (docs/decisions/push-loop.md).
 */
const E2E_WITHOUT_BUILTINS = [
  'copilot',
  'ms-vscode.js-debug',
  'ms-vscode.js-debug-companion',
  'ms-vscode.vscode-js-profile-table',
  'mermaid-markdown-features',
  'markdown-language-features',
  'git',
  'git-base',
  'github',
  'github-authentication',
  'microsoft-authentication',
  'typescript-language-features',
];

/** Waits until the workbench and its status bar are drawn (after a load or a reload). */
async function workbenchShown(page: Page): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  await page.locator('.statusbar').waitFor();
}

export interface WorkbenchOptions {
  /** Boot time of instances in the simulator. Default 3. */
  bootSeconds?: number;
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
  /** code-server's display language (`--locale`): needs a language pack for it, installed and registered (test/harness/pseudoLocale.ts). */
  locale?: string;
  /** More .vsix files installed next to the extension (a language pack, say). */
  install?: string[];
  /** Runs once the extensions are installed, before the window loads (to add files to one, say). */
  beforeLoad?: (server: CodeServer) => Promise<void> | void;
  /**
   * VS Code's smoke-test driver, on by default: the suites read notifications from the center, and
   * toasts would cover what they click next. Off, the window shows toasts as users see them.
   */
  smokeTestDriver?: boolean;
}

/** code-server with the packaged extension and a simulator of its own (demo key), open in Chromium. */
export async function openWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  vsix ??= packageExtension({ quiet: true }).path;
  const sim = await spawnSimulator({ bootSeconds: options.bootSeconds ?? 3 });
  const folder = trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-e2e-')));
  const server = await startCodeServer({
    smokeTestDriver: options.smokeTestDriver ?? true,
    install: [vsix, ...(options.install ?? [])],
    settings: {
      'gpuRental.apiUrl': sim.url,
      'gpuRental.browserWorkspace.downloadUrl': mirrorDownloadUrl(sim.url),
      'gpuRental.pollIntervalSeconds': 2,
      'terminal.integrated.gpuAcceleration': 'off',
      ...options.settings,
    },
    env: options.env,
    withoutBuiltins: E2E_WITHOUT_BUILTINS,
    home: trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-e2e-home-'))),
    locale: options.locale,
  });
  await options.beforeLoad?.(server);
  const browser = await launchBrowser();
  const page = browser.pages()[0] ?? (await browser.newPage());
  // The page's own load can take more than playwright's 30 s on a machine busy with the other
  // test lanes: wait only for the navigation, then for the workbench (90 s).
  await page.goto(server.url(folder), { waitUntil: 'commit', timeout: 90_000 });
  await workbenchShown(page);
  mkdirSync(SCREENSHOTS, { recursive: true });

  const wb: Workbench = {
    page,
    sim,
    server,
    folder,
    async shot(name, readme = false) {
      // One screenshot, copied: a hover or a toast may be gone by a second one.
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
      if (readme) copyFileSync(join(SCREENSHOTS, `${name}.png`), join(REPO, 'media', 'screenshots', `${name}.png`));
    },
    async openSidebar() {
      // The whole item, not its icon: the item's badge (a progress, the running count) lies over
      // the icon and takes the click, which an item counts as its own.
      const tab = page
        .locator('.activitybar .action-item:has(> a[aria-label^="GPU Rental"]), .activitybar .action-item[aria-label^="GPU Rental"]')
        .first();
      // Clicking the tab of the container already shown hides it, and a window just reloaded may
      // show it before its views are drawn: click only while it is not the one shown.
      const section = wb.section('Instances');
      const deadline = Date.now() + 60_000;
      while (!(await section.isVisible())) {
        if (Date.now() > deadline) await section.waitFor({ timeout: 1 });
        const shown = await tab.evaluate((el) => el.closest('.action-item')?.classList.contains('checked') === true);
        if (!shown) await tab.click();
        await section.waitFor({ timeout: 5_000 }).catch(() => undefined);
      }
    },
    section(name) {
      return page.locator('.pane').filter({ has: page.locator(`.pane-header h3.title:text-is("${name}")`) });
    },
    async titleAction(name, action) {
      const section = wb.section(name);
      await section.locator('.pane-header').hover();
      await section.locator('.pane-header').getByRole('button', { name: action }).click();
    },
    rows(section, text) {
      const rows = wb.section(section).locator('.monaco-list-row');
      return text === undefined ? rows : rows.filter({ hasText: text });
    },
    dialog() {
      return page.locator('.monaco-dialog-box');
    },
    async reload() {
      await page.reload();
      await workbenchShown(page);
    },
    async runCommand(title) {
      // The palette lists the commands whose `when` holds as it opens, and does not look again while
      // open: one opened while the extension still checks its key lacks the signed-in commands.
      const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: title }).first();
      await reopenUntilShown(
        page,
        async () => {
          await page.keyboard.press('F1');
          const input = page.locator('.quick-input-widget input');
          await input.waitFor({ timeout: 5_000 });
          await input.fill(`>${title}`, { timeout: 5_000 });
        },
        row,
        `the command palette does not offer "${title}"`,
      );
      await page.keyboard.press('Enter');
    },
    quickInput() {
      return page.locator('.quick-input-widget');
    },
    async rentFirstOfferToConfirmation() {
      await wb.contextMenu(wb.rows('Offers', PRICED).first(), 'Rent…');
      await wb.pick('ubuntu:22.04');
      await expect(wb.quickInput().getByText(/Disk size in GB/)).toBeVisible();
      await page.keyboard.press('Enter');
      await wb.pick(/SSH/);
      await expect(wb.quickInput().getByText(/A label to recognise/)).toBeVisible();
      await page.keyboard.press('Enter');
      await wb.pick('No start-up script');
    },
    async pick(text) {
      const row = wb.quickInput().locator('.quick-input-list .monaco-list-row').filter({ hasText: text }).first();
      await expect(row).toBeVisible();
      await row.click();
    },
    async hoverUntil(row, wanted) {
      const tooltip = page.locator('.monaco-hover').filter({ hasText: wanted });
      const deadline = Date.now() + 45_000;
      for (;;) {
        await page.mouse.move(700, 300);
        await page.waitForTimeout(300);
        await wb.rows('Instances', row).first().hover();
        if (
          await tooltip.waitFor({ timeout: 4_000 }).then(
            () => true,
            () => false,
          )
        )
          return;
        if (Date.now() > deadline) await expect(tooltip, 1).toBeVisible();
      }
    },
    async contextMenu(target, label) {
      // A row drawn again as the menu opens (its tooltip filled in, say) closes the menu.
      const item = page.getByRole('menuitem', { name: label }).first();
      await reopenUntilShown(page, () => target.click({ button: 'right' }), item, `the context menu does not offer "${label}"`);
      await item.hover();
      // A context menu ignores a click that comes right after it opened.
      await page.waitForTimeout(300);
      await item.click();
    },
    notification(text) {
      return page.locator('.notification-toast').filter({ hasText: text });
    },
    async notificationInCenter(text) {
      // Run as a quick input is still closing, the command can leave the center shut: open it until it shows.
      await reopenUntilShown(
        page,
        () => wb.runCommand('Notifications: Show Notifications'),
        page.locator('.notifications-center.visible'),
        'the notification center did not open',
      );
      return page.locator('.notifications-center .notification-list-item').filter({ hasText: text });
    },
    statusBar(text) {
      return page.locator('.statusbar-item').filter({ hasText: text });
    },
    async close() {
      await cleanup();
    },
  };
  return wb;
}

/**
 * Opens a palette or a menu until it shows `wanted` (5 s per attempt, 30 s in all): one that opens
 * before the window is ready, or is drawn over as it opens, is closed with Escape and opened again.
 */
async function reopenUntilShown(page: Page, open: () => Promise<void>, wanted: Locator, failure: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // An attempt whose input was drawn over (a dialog closing makes the workbench inert) fails
    // within its own time and is made again, rather than waiting out the whole deadline.
    const opened = await open().then(
      () => true,
      () => false,
    );
    const shown =
      opened &&
      (await wanted.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      ));
    if (shown) return;
    if (Date.now() > deadline) throw new Error(failure);
    await page.keyboard.press('Escape');
    await page.waitForTimeout(500);
  }
}

/** Calls the suite simulator's control API, as a test outside the window does. */
export async function control(wb: Pick<Workbench, 'sim'>, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${wb.sim.url}/__control/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`control ${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** Copies the extension's own log (its "GPU Rental" output channel, which VS Code writes under the user data folder) beside a failure's screenshots. */
function saveExtensionLog(userDataDir: string, to: string): void {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/GPU Rental\.log$/.test(entry.name)) found.push(path);
    }
  };
  try {
    walk(join(userDataDir, 'logs'));
    if (found.length) copyFileSync(found.sort().pop()!, to);
  } catch {
    // No log to keep: the screenshots say what they can.
  }
}

/** What an e2e suite's workbench starts with, on top of `WorkbenchOptions`. */
export interface SuiteOptions extends WorkbenchOptions {
  /** Hand the demo key over through GPU_RENTAL_API_KEY, as npm start does. Default true. */
  signedIn?: boolean;
  /** Runs once the workbench is open, before the sidebar opens (rent through the API, say). */
  prepare?: (wb: Workbench) => Promise<void>;
}

/**
 * The hooks every e2e suite needs: a workbench (signed in with the demo key unless told otherwise)
 * with the sidebar open before the tests, screenshots of the window and of the notification center
 * when a test fails, and everything closed after. Returns a getter.
 */
export function workbenchForSuite(options: SuiteOptions = {}): () => Workbench {
  const { signedIn = true, prepare, ...open } = options;
  let wb: Workbench | undefined;
  before(async () => {
    wb = await openWorkbench({
      bootSeconds: 2,
      ...open,
      env: { ...(signedIn ? { GPU_RENTAL_API_KEY: DEMO_KEY } : {}), ...open.env },
    });
    await prepare?.(wb);
    await wb.openSidebar();
  });
  // Everything this suite started ends, also when the workbench never opened (a failed before):
  // the simulator, code-server and the browser are tracked as they start.
  after(() => (wb ? wb.close() : cleanup()));
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !wb) return;
    const name = `failed-${this.currentTest.title.replace(/\W+/g, '-')}`;
    // A test may have left another page in front (a browser workspace's): the window's is shot.
    await wb.page.bringToFront();
    await wb.shot(name);
    await wb.runCommand('Notifications: Show Notifications');
    await wb.shot(`${name}-notifications`);
    saveExtensionLog(wb.server.userDataDir, join(SCREENSHOTS, `${name}.log`));
  });
  return () => {
    if (!wb) throw new Error('the workbench did not open');
    return wb;
  };
}
