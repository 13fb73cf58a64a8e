// npm run bench (part): the extension's activation time in real VS Code (code-server 1.139), as
// the extension logs it ("Activated in X ms", performance.now() around activate()), median of
// several window loads; plus the bundle and .vsix sizes. Targets: activation <= 20 ms,
// dist/extension.js <= 350 KB, .vsix <= 1 MB.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../../scripts/paths';
import { cleanup, cleanupOnExit } from '../../scripts/processes';
import { eventually } from '../support/eventually';
import { openBenchWindow } from './benchWindow';

const RUNS = Number(process.env.GPU_RENTAL_BENCH_RUNS ?? 7);

/** Every match of `pattern` in the extension's log files under `dir` (one log per window load). */
function logMatches(dir: string, pattern: RegExp): RegExpMatchArray[] {
  const found: RegExpMatchArray[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/GPU Rental/.test(e.name)) found.push(...readFileSync(p, 'utf8').matchAll(pattern));
    }
  };
  walk(dir);
  return found;
}

function activationTimes(dir: string): number[] {
  return logMatches(dir, /Activated in (\d+(?:\.\d+)?) ms/g).map((m) => Number(m[1]));
}

function splits(dir: string): string[] {
  return logMatches(dir, /module (\d+\.\d) ms \(VS Code's API object (\d+\.\d) ms of it\) \+ activate\(\) (\d+\.\d) ms/g).map(
    (m) => `${m[1]} (API ${m[2]}) + ${m[3]}`,
  );
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  cleanupOnExit();
  // Opening the view activates the extension; later loads restore the view, which activates it again.
  const { vsix, server, page } = await openBenchWindow();
  const bundle = statSync(join(REPO, 'dist', 'extension.js')).size;
  const chunk = statSync(join(REPO, 'dist', 'undici.js')).size;
  const logs = join(server.userDataDir, 'logs');
  const activations = (n: number) => eventually(() => activationTimes(logs).length >= n, `the activation line of load ${n}`, 60_000);
  await activations(1);
  for (let i = 2; i <= RUNS; i++) {
    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    await activations(i);
  }
  const times = activationTimes(logs);
  console.log(`\nActivation in real VS Code (code-server 1.139), ${times.length} window loads`);
  console.log(
    `  median ${median(times).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (target <= 20 ms)`,
  );
  console.log(`  runs: ${times.map((t) => t.toFixed(1)).join(', ')} ms`);
  console.log(`  split, module evaluation (VS Code's API object) + activate(): ${splits(logs).join(', ')}`);
  console.log(`Sizes`);
  console.log(
    `  dist/extension.js ${(bundle / 1024).toFixed(1)} KiB (target <= 350 KB); dist/undici.js ${(chunk / 1024).toFixed(1)} KiB, loaded on the first request`,
  );
  console.log(`  dist/gpu-rental.vsix ${(vsix.bytes / 1024).toFixed(1)} KiB (target <= 1 MB)`);
}

main()
  .then(() => cleanup())
  .catch(async (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    await cleanup();
    process.exitCode = 1;
  });
