// `npm test`: every tier, and one closing line.
//
//   at once: lint, typecheck, the build (the production bundle packed into the .vsix the e2e files
//   install; integration builds its own bundles as it starts) and code-server's one-time install: tools that
//   only compute, with no wait to run past. Then, one after another, the tiers that wait on
//   processes: test:fast, test:sim, the integration suites in code-server, the e2e files
//   (GPU_RENTAL_E2E_JOBS at a time, default 1). Side by side on two cores they starved each other
//   (load average 36): e2e pages, sim-tier jobs and a proxy suite ran past their own waits.
//
//   tsx scripts/test.ts [--serial]     --serial: one step after another, in this order
//
// A step is skipped when one it waits for failed. Each step's output goes to a log under $TMPDIR/gpu-rental-test-<pid>/ and is printed when the step
// ends; the last line is `N passed, N failed` over every tier (a step that fails before counting, a
// lint or a crash, counts as one failure).
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './paths';

interface Step {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
}

interface Outcome {
  name: string;
  code: number;
  seconds: number;
  passed: number;
  failed: number;
  counted: boolean;
}

const serial = process.argv.includes('--serial');
const logs = join(tmpdir(), `gpu-rental-test-${process.pid}`);
mkdirSync(logs, { recursive: true });
const started = Date.now();
const children = new Set<number>();
const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const vsix = join(REPO, 'dist', 'gpu-rental.vsix');
// One e2e file at a time unless asked: two beside each other on the 2-core CI machine ran past
// their waits (docs/decisions/push-loop.md).
const e2eJobs = process.env.GPU_RENTAL_E2E_JOBS ?? '1';

/** What the run's counts were, read from a runner's own closing lines (mocha's, or the integration runner's). */
export function countsOf(log: string): { passed: number; failed: number; counted: boolean } {
  // eslint-disable-next-line no-control-regex -- the colour codes a runner may print
  const plain = log.replace(/\x1b\[[0-9;]*m/g, '');
  const own = [...plain.matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
  if (own) return { passed: Number(own[1]), failed: Number(own[2]), counted: true };
  const passing = [...plain.matchAll(/^\s*(\d+) passing\b/gm)].at(-1);
  const failing = [...plain.matchAll(/^\s*(\d+) failing\b/gm)].at(-1);
  if (!passing && !failing) return { passed: 0, failed: 0, counted: false };
  return { passed: Number(passing?.[1] ?? 0), failed: Number(failing?.[1] ?? 0), counted: true };
}

/** Runs one step in its own process group with its output in a log; prints the log when it ends. */
function run(step: Step): Promise<Outcome> {
  const log = join(logs, `${step.name.replace(/[^a-z0-9]+/gi, '-')}.log`);
  const out = createWriteStream(log);
  const begin = Date.now();
  console.log(`[${elapsed()}] ${step.name}: started`);
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      cwd: REPO,
      env: { ...process.env, FORCE_COLOR: '0', ...step.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid) children.add(child.pid);
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    const finish = (code: number) => {
      if (child.pid) children.delete(child.pid);
      out.end(() => {
        const text = readFileSync(log, 'utf8');
        const seconds = (Date.now() - begin) / 1000;
        const counts = countsOf(text);
        console.log(`\n===== ${step.name} (${step.command} ${step.args.join(' ')}) =====`);
        process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
        console.log(`[${elapsed()}] ${step.name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s`);
        resolve({ name: step.name, code, seconds, ...counts });
      });
    };
    child.on('error', (error) => {
      out.write(`could not start: ${error.message}\n`);
      finish(127);
    });
    child.on('close', (code, signal) => finish(code ?? (signal ? 128 : 1)));
  });
}

/**
 * A step, the steps it needs (it starts once they all passed, and is skipped when one failed), and
 * the steps it only follows (it starts once they ended, however they ended: two heavy lanes that
 * would starve each other on two cores).
 */
interface Planned extends Step {
  after: string[];
  follows?: string[];
}

/**
 * Runs every step as soon as the steps it waits for have passed (all at once where they can), or
 * one at a time in the plan's order with --serial. Resolves every step's outcome, skipped ones too.
 */
async function schedule(plan: Planned[]): Promise<Outcome[]> {
  const done = new Map<string, Promise<Outcome>>();
  let chain: Promise<unknown> = Promise.resolve();
  for (const step of plan) {
    const waits = step.after.map((name) => done.get(name)!);
    const follows = (step.follows ?? []).map((name) => done.get(name)!);
    const start = async (): Promise<Outcome> => {
      await Promise.all(follows);
      const before = await Promise.all(waits);
      const failed = before.find((o) => o.code !== 0);
      if (failed) return { name: step.name, code: -1, seconds: 0, passed: 0, failed: 0, counted: false };
      return run(step);
    };
    const outcome = serial ? chain.then(start) : start();
    chain = outcome;
    done.set(step.name, outcome);
  }
  return Promise.all(done.values());
}

const npm = (script: string, after: string[], env?: Record<string, string>): Planned => ({
  name: script,
  command: 'npm',
  args: ['run', '--silent', script],
  env,
  after,
});
const mocha = (name: string, args: string[], after: string[], env?: Record<string, string>): Planned => ({
  name,
  command: bin('mocha'),
  args,
  after,
  env,
});

async function main(): Promise<number> {
  const checked = ['lint', 'typecheck', 'package'];
  const outcomes = await schedule([
    npm('lint', []),
    npm('typecheck', []),
    // package.ts builds the production bundle, then packs it (the .vsix the e2e files install).
    npm('package', []),
    { name: 'code-server', command: bin('tsx'), args: ['scripts/codeServer.ts', 'install'], after: [] },
    mocha('unit: fast', ['--config', '.mocharc.fast.yml', '--reporter', 'dot'], checked),
    mocha('unit: sim', ['--config', '.mocharc.sim.yml'], ['unit: fast']),
    // The tiers that wait on processes run one after another: side by side on two cores they ran
    // past their own waits (load average 36; docs/decisions/push-loop.md). Integration builds its
    // development bundle as it always did; the e2e files install the .vsix packed above.
    { ...npm('test:integration', [...checked, 'code-server']), follows: ['unit: sim'] },
    {
      ...mocha(
        'e2e',
        ['--timeout', '180000', ...(e2eJobs === '1' ? [] : ['--parallel', '--jobs', e2eJobs]), 'test/e2e/**/*.e2e.ts'],
        [...checked, 'code-server'],
        {
          GPU_RENTAL_E2E_VSIX: vsix,
        },
      ),
      follows: ['test:integration'],
    },
  ]);

  console.log(`\n===== summary (${serial ? 'serial' : 'checks at once, then the tiers in turn'}, ${elapsed()} in all) =====`);
  for (const o of outcomes) {
    const counts =
      o.code === -1
        ? 'skipped: a step it waits for failed'
        : o.counted
          ? `${o.passed} passed, ${o.failed} failed`
          : o.code === 0
            ? 'ok'
            : 'failed';
    console.log(`  ${o.name.padEnd(14)} ${o.seconds.toFixed(0).padStart(5)} s  ${counts}`);
  }
  const passed = outcomes.reduce((n, o) => n + o.passed, 0);
  // A step that failed without a count (lint, a crash, a runner that died) counts as one failure.
  const failed = outcomes.reduce((n, o) => n + (o.code <= 0 ? o.failed : Math.max(1, o.failed)), 0);
  console.log(`\n${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

/** Ends every step's process group: on Ctrl-C, on a kill, and on a crash of this runner. */
function stopAll(): void {
  for (const pid of children) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

if (require.main === module) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      stopAll();
      process.exit(130);
    });
  }
  main()
    .then((code) => process.exit(code))
    .catch((error: unknown) => {
      stopAll();
      console.error(error);
      console.log('0 passed, 1 failed');
      process.exit(1);
    });
}
