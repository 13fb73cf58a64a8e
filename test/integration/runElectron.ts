// npm run test:vscode: the same suites in desktop VS Code through @vscode/test-electron, on the
// engines minimum (1.96.0) and on stable. It downloads VS Code into .vscode-test/, so it needs the
// internet (and a display: on a headless Linux, run it under xvfb-run); CI here has neither and
// uses npm run test:integration (code-server) instead.
//   GPU_RENTAL_VSCODE_VERSIONS=1.96.0,stable   the versions to run on, in order
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { QUIET_SETTINGS } from '../../scripts/codeServer';
import { CACHE_DIR, NODE_BIN, REPO } from '../../scripts/paths';
import { cleanupOnExit, runTestMain, trackTempDir } from '../../scripts/processes';
import { followResults } from '../harness/results';
import { spawnSimulator } from '../support/simulator';

const VERSIONS = (process.env.GPU_RENTAL_VSCODE_VERSIONS ?? '1.96.0,stable').split(',');

/** Downloads (or finds in .vscode-test/) each version first, so that being offline fails at once and says so. */
async function download(version: string): Promise<string> {
  try {
    return await downloadAndUnzipVSCode({ version, cachePath: CACHE_DIR });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not download VS Code ${version}: ${message}\nThis runner needs the internet. Offline, use npm run test:integration (code-server).`,
      { cause: error },
    );
  }
}

async function runOn(
  version: string,
  executable: string,
  sim: { url: string; apiKey: string },
): Promise<{ passed: number; failed: number }> {
  const work = trackTempDir(mkdtempSync(join(tmpdir(), `gpu-rental-electron-${version}-`)));
  const userDataDir = join(work, 'user');
  const extensionsDir = join(work, 'extensions');
  const folder = join(work, 'workspace');
  for (const dir of [join(userDataDir, 'User'), extensionsDir, folder]) mkdirSync(dir, { recursive: true });
  const settings = { ...QUIET_SETTINGS, 'gpuRental.apiUrl': sim.url, 'gpuRental.pollIntervalSeconds': 2 };
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  const results = join(work, 'results.jsonl');
  console.log(`\nVS Code ${version}`);
  let exitCode: number;
  try {
    exitCode = await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: REPO,
      extensionTestsPath: join(REPO, 'out', 'test', 'integration', 'index.js'),
      // The first argument is the folder to open; test-electron adds the sandbox, welcome and trust flags.
      launchArgs: [folder, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--disable-extensions'],
      extensionTestsEnv: { GPU_RENTAL_TEST_RESULTS: results, GPU_RENTAL_TEST_API_URL: sim.url, GPU_RENTAL_TEST_API_KEY: sim.apiKey },
    });
  } catch (error) {
    // TestRunFailedError: VS Code exited non-zero (run() rejected because a test failed, or a crash).
    exitCode = 1;
    console.error(error instanceof Error ? error.message : String(error));
  }
  const outcome = await followResults(results, { timeoutMs: 1_000, testTimeoutMs: 1_000, startTimeoutMs: 1_000 });
  for (const f of outcome.failures) console.log(`  ✘ ${f.title}\n${f.error}`);
  const failed = outcome.failed + (outcome.finished ? 0 : 1);
  console.log(`VS Code ${version}: ${outcome.passed} passed, ${failed} failed (exit ${exitCode})`);
  return { passed: outcome.passed, failed: exitCode !== 0 && failed === 0 ? 1 : failed };
}

async function main(): Promise<number> {
  cleanupOnExit();
  for (const args of [['esbuild.mjs'], ['esbuild.mjs', '--tests']]) {
    if (spawnSync(NODE_BIN, args, { cwd: REPO, stdio: 'inherit' }).status !== 0) throw new Error(`build failed: node ${args.join(' ')}`);
  }
  const executables: string[] = [];
  for (const version of VERSIONS) executables.push(await download(version));
  const sim = await spawnSimulator({ apiKey: `it-${randomBytes(12).toString('hex')}`, bootSeconds: 3 });
  let passed = 0;
  let failed = 0;
  for (const [i, version] of VERSIONS.entries()) {
    const r = await runOn(version, executables[i]!, sim);
    passed += r.passed;
    failed += r.failed;
  }
  console.log(`\n${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

runTestMain(main);
