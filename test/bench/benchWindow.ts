// The window a browser benchmark measures in: the packaged extension (production build) in
// code-server, against a simulator of its own, signed in with the demo key, the GPU Rental view
// opened. Each bench then times what it is about.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../../scripts/browser';
import { startCodeServer, type CodeServer } from '../../scripts/codeServer';
import { packageExtension, type Packaged } from '../../scripts/package';
import { trackTempDir } from '../../scripts/processes';
import { DEMO_KEY } from '../support/keys';
import { spawnSimulator } from '../support/simulator';

export interface BenchWindow {
  readonly vsix: Packaged;
  readonly server: CodeServer;
  readonly page: Page;
}

export interface BenchWindowOptions {
  /** Passed to the simulator (`--offers 10000`). */
  simulatorArgs?: string[];
  /** The page's size. */
  viewport?: { width: number; height: number };
  /** More .vsix files installed beside GPU Rental's. */
  install?: string[];
  /**
   * Whether to open the GPU Rental view (the default), which activates the extension at once
   * (`onView`). Left closed, the window shows the Explorer and VS Code activates the extension
   * after start-up (`onStartupFinished`).
   */
  openView?: boolean;
}

/** Opens the window. */
export async function openBenchWindow(options: BenchWindowOptions = {}): Promise<BenchWindow> {
  const vsix = packageExtension({ quiet: true });
  const sim = await spawnSimulator({ bootSeconds: 3, extraArgs: options.simulatorArgs });
  const folder = trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-bench-')));
  const server = await startCodeServer({
    smokeTestDriver: true,
    install: [vsix.path, ...(options.install ?? [])],
    settings: { 'gpuRental.apiUrl': sim.url },
    env: { GPU_RENTAL_API_KEY: DEMO_KEY },
  });
  const browser = await launchBrowser();
  const page = browser.pages()[0] ?? (await browser.newPage());
  if (options.viewport) await page.setViewportSize(options.viewport);
  await page.goto(server.url(folder));
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  if (options.openView === false) return { vsix, server, page };
  // Opening the view activates the extension.
  await page
    .locator('.activitybar .action-item a[aria-label^="GPU Rental"], .activitybar .action-item[aria-label^="GPU Rental"]')
    .first()
    .click();
  return { vsix, server, page };
}
