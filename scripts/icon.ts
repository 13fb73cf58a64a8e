// npx tsx scripts/icon.ts: renders media/icon.png, the 128×128 Marketplace and Open VSX icon,
// from media/gpu-rental.svg (the activity bar glyph). Both registries refuse an SVG icon, and the
// glyph alone is a thin currentColor outline that vanishes on a light or dark gallery page, so the
// PNG draws it in white on a solid rounded tile. Rendered by the Chromium the e2e tests use: no
// image tool or download is needed, and rerunning it after the glyph changes keeps the two alike.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from './browser';
import { cleanup } from './processes';
import { REPO } from './paths';

export const ICON_SVG = join(REPO, 'media', 'gpu-rental.svg');
export const ICON_PNG = join(REPO, 'media', 'icon.png');
/** Both registries show the icon at 128×128 (and scale it down elsewhere). */
export const ICON_SIZE = 128;

/** The page Chromium screenshots: the glyph, stroked white, centred on a rounded tile. */
export function iconPage(svg: string): string {
  const glyph = svg.replace(/stroke="currentColor"/, 'stroke="#ffffff"').replace(/width="24" height="24"/, 'width="96" height="96"');
  return `<!doctype html><html><head><style>
    html, body { margin: 0; background: transparent; }
    .tile {
      width: ${ICON_SIZE}px; height: ${ICON_SIZE}px; border-radius: 24px; display: flex;
      align-items: center; justify-content: center; background: linear-gradient(135deg, #1f8a70 0%, #12516b 100%);
    }
  </style></head><body><div class="tile">${glyph}</div></body></html>`;
}

async function main(): Promise<void> {
  const context = await launchBrowser({ viewport: { width: ICON_SIZE, height: ICON_SIZE } });
  const page = await context.newPage();
  await page.setContent(iconPage(readFileSync(ICON_SVG, 'utf8')));
  const png = await page.locator('.tile').screenshot({ omitBackground: true });
  writeFileSync(ICON_PNG, png);
  console.log(`${ICON_PNG.replace(`${REPO}/`, '')}: ${png.length} bytes, ${ICON_SIZE}×${ICON_SIZE}`);
}

if (require.main === module) {
  main()
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    })
    .finally(() => void cleanup());
}
