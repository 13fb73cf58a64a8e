// Runs inside the VS Code extension host (extensionTestsPath): mocha over the compiled suites next
// to this file. The host has no stdout for the runner to read, so progress and results go to the
// file named by GPU_RENTAL_TEST_RESULTS, one JSON record per line, as they happen: a runner that
// times out can name the test (or hook) that was running.
//   GPU_RENTAL_TEST_RESULTS     the JSON-lines file to append to (unset: records are not written)
//   GPU_RENTAL_TEST_GREP        only tests whose full title matches this pattern
//   GPU_RENTAL_TEST_TIMEOUT_MS  mocha's per-test timeout (default 20000)
//   GPU_RENTAL_TEST_SHUFFLE     a seed: the suite files run in an order shuffled by it (the same seed, the same order)
// Before each top-level suite's own hooks, resetForSuite (reset.ts) puts the window and the
// simulator back to the run's defaults: every suite passes alone, and after any other.
import { appendFileSync, readdirSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Mocha from 'mocha';
import { resetForSuite } from './reset';

const REPO = resolve(__dirname, '..', '..', '..');

/**
 * One line of the results file. `begin` first; then per test `start`, then `pass`, `fail` or
 * `pending`; `hook` when a before/after hook starts (a hook that hangs is then named); `end` last,
 * with the counts. A failure in a hook is a `fail` whose title names the hook.
 */
export interface ResultRecord {
  event: 'begin' | 'start' | 'hook' | 'pass' | 'fail' | 'pending' | 'end';
  title?: string;
  /** fail: the error's stack (its first line is the message), or the message when there is none. */
  error?: string;
  /** fail: the error's message alone. */
  message?: string;
  durationMs?: number;
  passed?: number;
  failed?: number;
  pending?: number;
}

function describeError(error: unknown): { message: string; error: string } {
  if (error instanceof Error) return { message: error.message, error: error.stack ? mapStack(error.stack) : error.message };
  return { message: String(error), error: String(error) };
}

/**
 * Points stack frames in the bundled suites at their .ts sources. The extension host replaces
 * Error.prepareStackTrace, which turns Node's own source-map support off, so the frames are mapped
 * here with the source maps Node loaded.
 */
function mapStack(stack: string): string {
  return stack.replace(/([^\s()]+\.js):(\d+):(\d+)/g, (frame, file: string, line: string, column: string) => {
    const compiled = isAbsolute(file) ? file : resolve(process.cwd(), file);
    const entry = findSourceMap(compiled)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return frame;
    const source = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(compiled), entry.originalSource);
    return `${relative(REPO, source)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

/** `items` in an order drawn from `seed` (mulberry32 over the seed's characters, Fisher-Yates). */
export function shuffled<T>(items: readonly T[], seed: string): T[] {
  let state = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 0x9e3779b1) >>> 0, 0x6d2b79f5);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function run(): Promise<void> {
  const file = process.env.GPU_RENTAL_TEST_RESULTS;
  const write = (record: ResultRecord) => {
    // Synchronous, so the record is on disk even if the test then blocks the extension host.
    if (file) appendFileSync(file, `${JSON.stringify(record)}\n`);
  };
  // Node keeps the source maps of the suites loaded from here on (they are inline), for mapStack.
  process.setSourceMapsEnabled(true);
  const mocha = new Mocha({ ui: 'bdd', timeout: Number(process.env.GPU_RENTAL_TEST_TIMEOUT_MS ?? 20_000), color: false, reporter: 'spec' });
  if (process.env.GPU_RENTAL_TEST_GREP) mocha.grep(process.env.GPU_RENTAL_TEST_GREP);
  const suites = readdirSync(__dirname, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.js'));
  const seed = process.env.GPU_RENTAL_TEST_SHUFFLE;
  const order = seed ? shuffled(suites.sort(), seed) : suites.sort();
  for (const name of order) mocha.addFile(join(__dirname, name));
  // Each top-level suite, as its file adds it, gets the reset as its first hook.
  mocha.suite.on('suite', (suite: Mocha.Suite) => {
    suite.beforeAll("reset to the run's defaults", async function () {
      this.timeout(90_000);
      await resetForSuite();
    });
  });
  let passed = 0;
  let failed = 0;
  let pending = 0;
  write({ event: 'begin', ...(seed ? { title: `files shuffled with seed ${seed}: ${order.join(', ')}` } : {}) });
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run(() => {
        write({ event: 'end', passed, failed, pending });
        if (failed > 0) reject(new Error(`${failed} integration test(s) failed`));
        else resolve();
      });
      runner.on('test', (test) => write({ event: 'start', title: test.fullTitle() }));
      runner.on('hook', (hook) => write({ event: 'hook', title: hook.fullTitle() }));
      runner.on('pass', (test) => {
        passed++;
        write({ event: 'pass', title: test.fullTitle(), durationMs: test.duration });
      });
      runner.on('fail', (test, error: unknown) => {
        failed++;
        write({ event: 'fail', title: test.fullTitle(), durationMs: test.duration, ...describeError(error) });
      });
      runner.on('pending', (test) => {
        pending++;
        write({ event: 'pending', title: test.fullTitle() });
      });
    } catch (error) {
      // A suite that throws while loading (a syntax error, a missing env var) stops the run here.
      write({ event: 'fail', title: 'loading the suites', ...describeError(error) });
      write({ event: 'end', passed, failed: failed + 1, pending });
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
