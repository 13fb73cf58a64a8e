// The fast tier's rule, enforced while it runs: a test that starts a process (ssh, rsync, tar, bash,
// an sshd, a container, a shell check) is named *.sim.test.ts and runs in the simulator tier.
// Loaded by .mocharc.fast.yml as a root hook plugin; every spawn a test makes fails that test with the rule and the command it tried.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const GUARDED = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
type Guarded = (typeof GUARDED)[number];
const originals = new Map<Guarded, unknown>(GUARDED.map((name) => [name, childProcess[name]]));

/** The error a fast test gets for starting `command`. */
export function spawnRefused(command: string): Error {
  return new Error(
    `a test in the fast tier started a process (${command}): name its file *.sim.test.ts so it runs in the simulator tier (npm run test:sim)`,
  );
}

/** esbuild's own service (tsx transforming a file loaded late) is the runner's, not the test's. */
function isToolchain(command: string): boolean {
  return /[\\/]esbuild(\.exe)?$|[\\/]@esbuild[\\/]/.test(command);
}

/**
 * The static checks of text the fast tier runs (test/support/staticChecks.ts): they read files
 * and start nothing else, so they stay beside the code they check.
 */
export function isStaticCheck(command: string, args: unknown): boolean {
  if (command === 'shellcheck') return true;
  return command === 'python3' && Array.isArray(args) && args[0] === '-m' && args[1] === 'py_compile';
}

/** `original` (one of child_process's functions) refusing every process but the runner's and the static checks. */
export function guard(name: Guarded, original = originals.get(name) as (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return function guarded(this: unknown, ...args: unknown[]) {
    const command = typeof args[0] === 'string' ? args[0] : String(args[0]);
    if (isToolchain(command) || isStaticCheck(command, args[1])) return original.apply(this, args);
    throw spawnRefused(command);
  };
}

function install(on: boolean): void {
  const target = childProcess as unknown as Record<Guarded, unknown>;
  for (const name of GUARDED) target[name] = on ? guard(name) : originals.get(name);
  syncBuiltinESMExports();
}

// Installed as this file loads, before any test file: a module that binds `execFile` as it loads
// (promisify(execFile), say) binds the guard.
install(true);

export const mochaHooks = {
  afterAll(): void {
    install(false);
  },
};
