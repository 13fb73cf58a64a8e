// Bundles the extension into dist/extension.js, and the HTTP stack (undici) into dist/undici.js,
// which the extension loads on its first request so that activation does not parse it.
//   node esbuild.mjs               development build with sourcemaps
//   node esbuild.mjs --production  minified build, prints the bundle size
//   node esbuild.mjs --watch       rebuild on change
//   node esbuild.mjs --tests       the integration suites, into out/test/integration/ (vscode and mocha stay external)
import * as esbuild from 'esbuild';
import { readdirSync, rmSync, statSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

/** @type {import('esbuild').BuildOptions} */
const options = {
  entryPoints: { extension: 'src/extension.ts', undici: 'src/ui/net/undici.ts' },
  outdir: 'dist',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['vscode'],
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  // The bundle's first and last lines note the time, so the logged activation time includes
  // evaluating the module, not only the activate() call.
  // The vscode module is required first so the cost of VS Code building its API object for the
  // extension can be told apart from the extension's own.
  banner: { js: 'var __gpuRentalLoadStart = performance.now(); require("vscode"); var __gpuRentalApiReady = performance.now();' },
  footer: { js: 'var __gpuRentalLoadEnd = performance.now();' },
};

function reportSize(result) {
  for (const [file, output] of Object.entries(result.metafile?.outputs ?? {})) {
    if (!file.endsWith('.js')) continue;
    const bytes = statSync(file).size;
    const inputs = Object.keys(output.inputs).length;
    console.log(`${file}: ${(bytes / 1024).toFixed(1)} KiB (${production ? 'production' : 'development'}, ${inputs} inputs)`);
  }
}

if (tests) {
  const dir = 'test/integration';
  // index.ts and every *.test.ts below test/integration, keeping subfolders; stale output of a
  // deleted suite must not run, so the folder is emptied first.
  const suites = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts') || f === 'index.ts');
  rmSync('out/test/integration', { recursive: true, force: true });
  await esbuild.build({
    entryPoints: suites.map((f) => `${dir}/${f}`),
    outbase: dir,
    outdir: 'out/test/integration',
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  console.log(`out/test/integration: ${suites.length} files`);
} else if (watch) {
  const ctx = await esbuild.context({
    ...options,
    plugins: [
      {
        name: 'report',
        setup(build) {
          build.onEnd((result) => {
            if (result.errors.length === 0) reportSize(result);
            else console.error(`build failed with ${result.errors.length} error(s)`);
          });
        },
      },
    ],
  });
  await ctx.watch();
  console.log('watching src/ for changes (Ctrl-C to stop)');
} else {
  const result = await esbuild.build(options);
  reportSize(result);
}
