// npm run test:vscode: the same suites in desktop VS Code through @vscode/test-electron, on the
// engines minimum (1.96.0) and on stable. It downloads VS Code, so it needs the internet; CI here
// has none and uses npm run test:integration (code-server) instead.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { NODE_BIN, REPO } from '../harness/paths';
import { cleanupOnExit, runTestMain, trackTempDir } from '../harness/processes';
import { followResults } from '../harness/results';
import { startSimulator } from '../harness/simulator';

const VERSIONS = (process.env.GPU_RENTAL_VSCODE_VERSIONS ?? '1.96.0,stable').split(',');

async function runOn(version: string, sim: { url: string; key: string }): Promise<{ passed: number; failed: number }> {
  const work = trackTempDir(mkdtempSync(join(tmpdir(), `gpu-rental-electron-${version}-`)));
  const userDataDir = join(work, 'user');
  const folder = join(work, 'workspace');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify({ 'gpuRental.apiUrl': sim.url, 'gpuRental.pollIntervalSeconds': 2, 'workbench.startupEditor': 'none' }));
  const results = join(work, 'results.jsonl');
  console.log(`\nVS Code ${version}`);
  let exitCode: number;
  try {
    exitCode = await runTests({
      version,
      extensionDevelopmentPath: REPO,
      extensionTestsPath: join(REPO, 'out', 'test', 'integration', 'index.js'),
      launchArgs: [folder, '--user-data-dir', userDataDir, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
      extensionTestsEnv: { GPU_RENTAL_TEST_RESULTS: results, GPU_RENTAL_TEST_API_URL: sim.url, GPU_RENTAL_TEST_API_KEY: sim.key },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/download|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|getaddrinfo|fetch failed/i.test(message)) {
      throw new Error(`Could not download VS Code ${version}: ${message}\nThis runner needs the internet. Offline, use npm run test:integration (code-server).`, { cause: error });
    }
    exitCode = 1;
    console.error(message);
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
  const sim = await startSimulator({ key: `it-${randomBytes(12).toString('hex')}`, bootSeconds: 3 });
  let passed = 0;
  let failed = 0;
  for (const version of VERSIONS) {
    const r = await runOn(version, sim);
    passed += r.passed;
    failed += r.failed;
  }
  console.log(`\n${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

runTestMain(main);
