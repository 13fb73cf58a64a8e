// Debian's Chromium driven by playwright-core (a browser download is impossible here).
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM } from './paths';
import { onCleanup, trackTempDir } from './processes';

export async function launchBrowser(
  options: { headless?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium was not found at ${CHROMIUM}. Install Debian's chromium (npm run setup does), or set CHROMIUM_PATH.`);
  const root = trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-chromium-')));
  const profile = join(root, 'profile');
  const own = { TMPDIR: join(root, 'tmp'), XDG_CONFIG_HOME: join(root, 'config'), XDG_CACHE_HOME: join(root, 'cache') };
  for (const dir of Object.values(own)) mkdirSync(dir);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    // Chromium's temp folders (org.chromium.Chromium.*) and crash database (~/.config/chromium)
    // go with the profile, not into /tmp and ~.
    env: { ...process.env, ...own },
    headless: options.headless ?? true,
    // The harness stops the browser itself, after the processes that depend on it.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    viewport: options.viewport ?? { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  onCleanup(() => context.close());
  return context;
}
