// npm run package: a production build packed into dist/gpu-rental.vsix by @vscode/vsce, then checked
// as Open VSX and the Marketplace check an upload (scripts/openVsx.ts). The content is what
// .vscodeignore (an allowlist) lets through; the size, the file list and the check are printed, and
// a failed check exits non-zero.
//
// The packaged README is media/marketplace.md. Neither registry resolves an image path into the
// VSIX: a screenshot renders only from an https URL, which vsce makes from a relative link and
// --baseImagesUrl. The project has no public repository yet, so GPU_RENTAL_IMAGES_URL names where
// the repository's files are served (e.g. https://raw.githubusercontent.com/OWNER/REPO/v0.1.0);
// media/screenshots/ must be there. Without it the screenshots are left out of the packaged README
// rather than shipped broken, and the VSIX stays small.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkVsixFile } from './openVsx';
import { NODE_BIN, REPO } from './paths';

export const VSIX = join(REPO, 'dist', 'gpu-rental.vsix');
const VSCE = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
const README = 'media/marketplace.md';
/** The README packaged when no images URL is given. vsce takes a README only inside the package's folder. */
const README_WITHOUT_IMAGES = 'dist/marketplace/README.md';
export const IMAGES_URL_VARIABLE = 'GPU_RENTAL_IMAGES_URL';
// Everything is bundled, so no node_modules ship; the project has no public repository yet.
const FLAGS = ['--no-dependencies', '--allow-missing-repository'];

/** media/marketplace.md with every line that is only a relative image removed. */
export function readmeWithoutImages(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !/^\s*!\[[^\]]*\]\((?![a-z]+:)[^)]*\)\s*$/i.test(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

/**
 * The vsce flags that pick the packaged README: with an images URL (https only, as both registries
 * require), media/marketplace.md with its links made absolute under `<url>/media`; without, a copy
 * with the screenshots left out.
 */
export function readmeFlags(imagesUrl: string | undefined): string[] {
  if (imagesUrl === undefined || imagesUrl === '') {
    mkdirSync(join(REPO, 'dist', 'marketplace'), { recursive: true });
    writeFileSync(join(REPO, README_WITHOUT_IMAGES), readmeWithoutImages(readFileSync(join(REPO, README), 'utf8')));
    return ['--readme-path', README_WITHOUT_IMAGES];
  }
  if (!/^https:\/\/[^/\s]+/.test(imagesUrl))
    throw new Error(`${IMAGES_URL_VARIABLE} must be an https URL (the registries load nothing else); it is "${imagesUrl}".`);
  return ['--readme-path', README, '--baseImagesUrl', `${imagesUrl.replace(/\/+$/, '')}/media`];
}

function run(args: string[]): string {
  const r = spawnSync(NODE_BIN, args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed:\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout ?? '';
}

/** What `packageExtension` made: the VSIX, its size, its files with their sizes, and the check. */
export interface Packaged {
  path: string;
  bytes: number;
  files: Array<{ path: string; size: number }>;
  /** Why Open VSX or the Marketplace would refuse it; empty when the check passes. */
  problems: string[];
  /** Whether the packaged README shows the screenshots (an images URL was given). */
  screenshots: boolean;
}

/** Builds, packages and checks; throws only when the build or vsce fails. */
export function packageExtension(options: { quiet?: boolean; imagesUrl?: string } = {}): Packaged {
  const build = run([join(REPO, 'esbuild.mjs'), '--production']);
  if (!options.quiet) process.stdout.write(build);
  const imagesUrl = options.imagesUrl ?? process.env[IMAGES_URL_VARIABLE];
  run([VSCE, 'package', ...FLAGS, ...readmeFlags(imagesUrl), '--out', VSIX]);
  const zip = readFileSync(VSIX);
  const { files, problems } = checkVsixFile(zip);
  return {
    path: VSIX,
    bytes: zip.length,
    files: files.map((f) => ({ path: f.path, size: f.size })),
    problems,
    screenshots: Boolean(imagesUrl),
  };
}

if (require.main === module) {
  const packaged = packageExtension();
  console.log(`${packaged.path.replace(`${REPO}/`, '')}: ${(packaged.bytes / 1024).toFixed(1)} KiB, ${packaged.files.length} files`);
  for (const f of packaged.files) console.log(`  ${f.path.padEnd(44)} ${(f.size / 1024).toFixed(1).padStart(8)} KiB`);
  if (!packaged.screenshots)
    console.log(`README screenshots left out: set ${IMAGES_URL_VARIABLE} to the https URL the repository is served from to include them.`);
  if (packaged.problems.length === 0) console.log('Open VSX check: passed');
  else {
    console.log(`Open VSX check: ${packaged.problems.length} problem(s)`);
    for (const p of packaged.problems) console.log(`  - ${p}`);
    process.exitCode = 1;
  }
}
