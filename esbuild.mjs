// Bundles the extension's activation chunk into dist/extension.js, the rest of it into dist/main.js
// (loaded on first use), and the HTTP stack (undici) into dist/undici.js, which the extension loads
// on its first request so that activation does not parse it.
//   node esbuild.mjs               development build with sourcemaps
//   node esbuild.mjs --production  minified build, prints the bundle size
//   node esbuild.mjs --watch       rebuild on change
//   node esbuild.mjs --tests       the integration suites, into out/test/integration/ (vscode and mocha stay external)
//   node esbuild.mjs --chunk       only dist/undici.js
// Every build but --tests and --chunk also bundles the Offer Explorer's webview script for the
// browser into dist/webview/explorer.js, beside its stylesheet and the codicon font.
//   --outdir=DIR                   write the bundles to DIR instead of dist/ (tests build a private copy)
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');
const chunkOnly = process.argv.includes('--chunk');
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';

/** @type {import('esbuild').BuildOptions} */
const common = {
  outdir,
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
  // The scripts sent to instances (src/**/remote/*.sh, *.py) are imported as text and inlined.
  loader: { '.sh': 'text', '.py': 'text' },
};

/** @type {import('esbuild').BuildOptions} */
const extension = {
  ...common,
  entryPoints: { extension: 'src/extension.ts' },
  // The bundle's first and last lines note the time, so the logged activation time includes
  // evaluating the module, not only the activate() call.
  // The vscode module is required first so the cost of VS Code building its API object for the
  // extension can be told apart from the extension's own.
  banner: { js: 'var __gpuRentalLoadStart = performance.now(); require("vscode"); var __gpuRentalApiReady = performance.now();' },
  footer: { js: 'var __gpuRentalLoadEnd = performance.now();' },
};

/**
 * The rest of the extension (src/main.ts): the views' code, the commands' bodies, the client and
 * zod. dist/extension.js, the activation chunk, loads it on first use (src/ui/shell/shell.ts).
 * A module both import exists once in each, so nothing shared between them may rely on identity:
 * the activation chunk holds only the ids, the stand-in views and the command stubs.
 * @type {import('esbuild').BuildOptions}
 */
const rest = { ...common, entryPoints: { main: 'src/main.ts' } };

/**
 * The HTTP chunk: its own build, without the extension's banner (it must not require vscode, so
 * that the unit tests can load the built file in plain Node).
 * @type {import('esbuild').BuildOptions}
 */
const chunk = { ...common, entryPoints: { undici: 'src/ui/net/undici.ts' } };

/**
 * The Offer Explorer's webview script: browser code, one IIFE, no Node built-ins. It bundles the
 * web components it uses (@vscode-elements/elements) and the pure core modules it shares with the
 * extension.
 * @type {import('esbuild').BuildOptions}
 */
const webview = {
  ...common,
  entryPoints: { explorer: 'src/webview/explorer/main.ts' },
  outdir: `${outdir}/webview`,
  format: 'iife',
  platform: 'browser',
  target: 'chrome120',
  external: [],
};

/** What the webview loads besides its script: its stylesheet and the codicon font with its CSS. */
function copyWebviewAssets() {
  const dir = `${outdir}/webview`;
  mkdirSync(dir, { recursive: true });
  copyFileSync('media/explorer.css', `${dir}/explorer.css`);
  copyFileSync('node_modules/@vscode/codicons/dist/codicon.css', `${dir}/codicon.css`);
  copyFileSync('node_modules/@vscode/codicons/dist/codicon.ttf', `${dir}/codicon.ttf`);
}

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
    loader: common.loader,
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  console.log(`out/test/integration: ${suites.length} files`);
} else if (watch) {
  const report = {
    name: 'report',
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length === 0) reportSize(result);
        else console.error(`build failed with ${result.errors.length} error(s)`);
      });
    },
  };
  copyWebviewAssets();
  const contexts = await Promise.all(
    [extension, rest, chunk, webview].map((options) => esbuild.context({ ...options, plugins: [report] })),
  );
  await Promise.all(contexts.map((ctx) => ctx.watch()));
  console.log('watching src/ for changes (Ctrl-C to stop)');
} else {
  const builds = chunkOnly ? [chunk] : [extension, rest, chunk, webview];
  if (!chunkOnly) copyWebviewAssets();
  for (const result of await Promise.all(builds.map((options) => esbuild.build(options)))) reportSize(result);
}
