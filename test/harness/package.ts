// npm run package: a production build packed into dist/gpu-rental.vsix by @vscode/vsce. The
// content is what .vscodeignore (an allowlist) lets through; the file list and size are printed.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_BIN, REPO } from './paths';

export const VSIX = join(REPO, 'dist', 'gpu-rental.vsix');
const VSCE = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
// Everything is bundled, so no node_modules ship; the project has no public repository or LICENSE file.
// The packaged README is media/marketplace.md: the repository README's screenshots are not shipped.
const FLAGS = ['--no-dependencies', '--allow-missing-repository', '--skip-license', '--readme-path', 'media/marketplace.md'];

function run(args: string[], quiet = false): string {
  const r = spawnSync(NODE_BIN, args, { cwd: REPO, encoding: 'utf8', stdio: quiet ? 'pipe' : ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed:\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout ?? '';
}

/** Builds and packages; returns the vsix path and its size in bytes. */
export function packageExtension(options: { quiet?: boolean } = {}): { path: string; bytes: number; files: string[] } {
  const build = run([join(REPO, 'esbuild.mjs'), '--production'], true);
  if (!options.quiet) process.stdout.write(build);
  run([VSCE, 'package', ...FLAGS, '--out', VSIX], true);
  const files = run([VSCE, 'ls', '--no-dependencies', '--readme-path', 'media/marketplace.md'], true).split('\n').filter(Boolean);
  const bytes = statSync(VSIX).size;
  return { path: VSIX, bytes, files };
}

if (require.main === module) {
  const { path, bytes, files } = packageExtension();
  console.log(`${path.replace(`${REPO}/`, '')}: ${(bytes / 1024).toFixed(1)} KiB, ${files.length} files`);
  for (const f of files) console.log(`  ${f}`);
}
