// Runs inside the VS Code extension host (extensionTestsPath): mocha over the compiled suites next
// to this file. The host has no stdout for the runner to read, so progress and results go to the
// file named by GPU_RENTAL_TEST_RESULTS, one JSON record per line, as they happen: a runner that
// times out can name the test that was running.
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

export interface ResultRecord {
  event: 'begin' | 'start' | 'pass' | 'fail' | 'end';
  title?: string;
  error?: string;
  durationMs?: number;
  passed?: number;
  failed?: number;
}

export function run(): Promise<void> {
  const file = process.env.GPU_RENTAL_TEST_RESULTS;
  const write = (record: ResultRecord) => {
    if (file) appendFileSync(file, `${JSON.stringify(record)}\n`);
  };
  const mocha = new Mocha({ ui: 'bdd', timeout: Number(process.env.GPU_RENTAL_TEST_TIMEOUT_MS ?? 30_000), color: false, reporter: 'dot' });
  if (process.env.GPU_RENTAL_TEST_GREP) mocha.grep(process.env.GPU_RENTAL_TEST_GREP);
  for (const name of readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort()) mocha.addFile(join(__dirname, name));
  let passed = 0;
  let failed = 0;
  write({ event: 'begin' });
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run(() => {
        write({ event: 'end', passed, failed });
        if (failed > 0) reject(new Error(`${failed} integration test(s) failed`));
        else resolve();
      });
      runner.on('test', (test) => write({ event: 'start', title: test.fullTitle() }));
      runner.on('pass', (test) => {
        passed++;
        write({ event: 'pass', title: test.fullTitle(), durationMs: test.duration });
      });
      runner.on('fail', (test, error: Error) => {
        failed++;
        write({ event: 'fail', title: test.fullTitle(), error: error.stack ?? String(error) });
      });
    } catch (error) {
      write({ event: 'fail', title: 'loading the suites', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      write({ event: 'end', passed, failed: failed + 1 });
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
