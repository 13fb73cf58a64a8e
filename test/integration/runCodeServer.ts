// npm run test:integration: the suites in test/integration inside a real VS Code (code-server
// 4.139.1 = VS Code 1.139), against the marketplace simulator, driven by Debian's Chromium.
//   --grep PATTERN                        run only tests whose full title matches
//   GPU_RENTAL_IT_TIMEOUT_MIN=10          the whole run
//   GPU_RENTAL_IT_TEST_TIMEOUT_MIN=2      one test or hook, past mocha's own 20 s timeout (a blocked host)
//   GPU_RENTAL_IT_START_TIMEOUT_MIN=3     until the suites begin in the extension host
//   GPU_RENTAL_TEST_SHUFFLE=SEED          run the suite files in an order shuffled by SEED (see index.ts)
// The suites get GPU_RENTAL_TEST_API_URL and GPU_RENTAL_TEST_API_KEY (a full-access key) for the
// simulator, and write their progress to GPU_RENTAL_TEST_RESULTS (see index.ts).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../../scripts/browser';
import { extensionHostLog, gpuRentalLog, remoteUri, startCodeServer } from '../../scripts/codeServer';
import { NODE_BIN, REPO } from '../../scripts/paths';
import { cleanupOnExit, runTestMain, trackTempDir } from '../../scripts/processes';
import { followResults } from '../harness/results';
import { spawnSimulator } from '../support/simulator';

const minutes = (name: string, fallback: number) => Number(process.env[name] ?? fallback) * 60_000;
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/**
 * code-server has no Remote-SSH. A stand-in that only declares the remote.SSH settings (test/fixtures)
 * lets the suites check the handoff: the remotePlatform entry and the folder URI given to the opener.
 */
function remoteSshStandIn(work: string): string {
  const out = join(work, 'remote-ssh-stand-in.vsix');
  const vsce = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(NODE_BIN, [vsce, 'package', '--allow-missing-repository', '--skip-license', '--out', out], {
    cwd: join(REPO, 'test', 'fixtures', 'remote-ssh-stand-in'),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`packaging the Remote-SSH stand-in failed:\n${r.stdout}${r.stderr}`);
  return out;
}

async function main(): Promise<number> {
  cleanupOnExit();
  const grepIndex = process.argv.indexOf('--grep');
  const grep = grepIndex > 0 ? process.argv[grepIndex + 1] : undefined;

  const buildStart = Date.now();
  for (const args of [['esbuild.mjs'], ['esbuild.mjs', '--tests']]) {
    const r = spawnSync(NODE_BIN, args, { cwd: REPO, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`build failed: node ${args.join(' ')}`);
  }
  console.log(`built in ${seconds(buildStart)}`);

  const startup = Date.now();
  const key = `it-${randomBytes(12).toString('hex')}`;
  const sim = await spawnSimulator({ apiKey: key, bootSeconds: 3 });
  const work = trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-it-')));
  const results = join(work, 'results.jsonl');
  const folder = join(work, 'workspace');
  mkdirSync(folder);
  const server = await startCodeServer({
    // The suites read notifications from the center; toasts would only cover the workbench.
    smokeTestDriver: true,
    settings: { 'gpuRental.apiUrl': sim.url, 'gpuRental.pollIntervalSeconds': 2 },
    // The SSH suites write keys and config into this home, and hand over to a Remote-SSH stand-in.
    home: join(work, 'home'),
    install: [remoteSshStandIn(work)],
    env: {
      GPU_RENTAL_TEST_RESULTS: results,
      GPU_RENTAL_TEST_API_URL: sim.url,
      GPU_RENTAL_TEST_API_KEY: key,
      GPU_RENTAL_TEST_HOME: join(work, 'home'),
      ...(grep ? { GPU_RENTAL_TEST_GREP: grep } : {}),
      ...(process.env.GPU_RENTAL_TEST_SHUFFLE ? { GPU_RENTAL_TEST_SHUFFLE: process.env.GPU_RENTAL_TEST_SHUFFLE } : {}),
    },
  });
  console.log(`code-server ${server.origin}, simulator ${sim.url}: up in ${seconds(startup)}`);
  const browser = await launchBrowser();
  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(
    server.url(folder, [
      ['extensionDevelopmentPath', remoteUri(server, REPO)],
      ['extensionTestsPath', remoteUri(server, join(REPO, 'out', 'test', 'integration', 'index.js'))],
    ]),
  );

  let running = Date.now();
  const outcome = await followResults(results, {
    timeoutMs: minutes('GPU_RENTAL_IT_TIMEOUT_MIN', 10),
    testTimeoutMs: minutes('GPU_RENTAL_IT_TEST_TIMEOUT_MIN', 2),
    startTimeoutMs: minutes('GPU_RENTAL_IT_START_TIMEOUT_MIN', 3),
    onRecord: (r) => {
      if (r.event === 'begin') {
        console.log(`suites began in the extension host ${seconds(startup)} after startup began${grep ? ` (grep ${grep})` : ''}`);
        if (r.title) console.log(r.title);
        running = Date.now();
      }
      if (r.event === 'pass') console.log(`  ✔ ${r.title} (${r.durationMs ?? 0} ms)`);
      if (r.event === 'fail') console.log(`  ✘ ${r.title}`);
      if (r.event === 'pending') console.log(`  - ${r.title} (pending)`);
      if (r.event === 'end') console.log(`suites ran in ${seconds(running)}`);
    },
  });

  for (const [i, f] of outcome.failures.entries()) console.log(`\n${i + 1}) ${f.title}\n${f.error}`);
  // What the extension logged (a command's caught error among it) is often the failure's cause.
  if (outcome.failures.length > 0) console.log(`\nGPU Rental's log ends:\n${gpuRentalLog(server)}`);
  if (!outcome.finished) {
    if (outcome.stuck) {
      console.log(
        `\nTimed out: the test "${outcome.stuck}" did not finish. The extension host log ends:\n${extensionHostLog(server, 1500)}`,
      );
    } else if (outcome.passed + outcome.failed > 0) {
      console.log('\nTimed out between tests: the run never reached its end.');
    } else {
      console.log(`\nTimed out: the suites never started in the extension host. Its log:\n${extensionHostLog(server)}`);
    }
  }
  const failed = outcome.failed + (outcome.finished ? 0 : 1);
  console.log(`\n${outcome.passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

runTestMain(main);
