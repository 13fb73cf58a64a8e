// The one set-up step that `npm start`, `npm test` and `.ci/run` share (npm runs it as `prestart`
// and `pretest`): it finds the Debian packages this machine lacks and installs them where it can (as
// root, or with sudo that asks for no password). Where it cannot, it stops before anything else
// runs and prints the one `apt-get install` line to run. On a machine without dpkg it says what the
// run needs and goes on.
//
//   tsx scripts/setup.ts start|test [--check]     (--check: say what is missing, install nothing)
import { spawnSync } from 'node:child_process';

export type SetupPurpose = 'start' | 'test';

/** Why each package is needed; the order is the order of the printed line. */
const NEEDS: ReadonlyArray<{ pkg: string; why: string; for: readonly SetupPurpose[] }> = [
  { pkg: 'ca-certificates', why: 'TLS for npm and apt', for: ['start', 'test'] },
  { pkg: 'libkrb5-dev', why: "code-server's native modules (built once into .vscode-test/)", for: ['start', 'test'] },
  { pkg: 'python3', why: "node-gyp, for code-server's native modules", for: ['start', 'test'] },
  { pkg: 'make', why: "node-gyp, for code-server's native modules", for: ['start', 'test'] },
  { pkg: 'g++', why: "node-gyp, for code-server's native modules", for: ['start', 'test'] },
  { pkg: 'openssh-server', why: "the simulator's instances each run a real sshd", for: ['start', 'test'] },
  { pkg: 'openssh-client', why: 'Connect, Upload, Download and jobs run ssh', for: ['start', 'test'] },
  { pkg: 'rsync', why: 'Upload and Download (both ends)', for: ['start', 'test'] },
  { pkg: 'tmux', why: 'jobs that outlive the session, inside the instances', for: ['start', 'test'] },
  { pkg: 'curl', why: "the idle watchdog's and the instances' own API calls", for: ['start', 'test'] },
  { pkg: 'jupyter-server', why: 'the Jupyter server of a Jupyter launch', for: ['start', 'test'] },
  { pkg: 'jupyter-core', why: '`jupyter server list`, read by Open Jupyter', for: ['start', 'test'] },
  { pkg: 'shellcheck', why: 'the static check of every script sent to an instance (test/unit/remoteScripts.test.ts)', for: ['test'] },
  { pkg: 'libarchive-tools', why: "bsdtar, stock macOS's tar, for the tar transfer tests", for: ['test'] },
  { pkg: 'iproute2', why: "`ip`: each overlay node's own network (as root)", for: ['start', 'test'] },
  { pkg: 'python3-torch', why: "a real torchrun (gloo) across the simulator's overlay nodes", for: ['test'] },
  { pkg: 'chromium', why: 'the browser that drives VS Code in integration and e2e tests', for: ['test'] },
  { pkg: 'fonts-liberation', why: 'readable text in the screenshots', for: ['test'] },
];

export function packagesFor(purpose: SetupPurpose): string[] {
  return NEEDS.filter((n) => n.for.includes(purpose)).map((n) => n.pkg);
}

/** The line a person runs when this step cannot install: one command, every missing package. */
export function installLine(missing: readonly string[]): string {
  return `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`;
}

/** Which of `packages` dpkg does not list as installed; undefined where there is no dpkg. */
export function missingPackages(packages: readonly string[], dpkgQuery = 'dpkg-query'): string[] | undefined {
  const r = spawnSync(dpkgQuery, ['-W', '-f=${Package} ${Status}\\n', ...packages], { encoding: 'utf8' });
  if (r.error) return undefined;
  const installed = new Set(
    r.stdout
      .split('\n')
      .filter((line) => line.endsWith(' install ok installed'))
      .map((line) => line.split(' ')[0]?.replace(/:.*$/, '')),
  );
  return packages.filter((p) => !installed.has(p));
}

/** How this process can run apt-get: directly (root), through sudo without a password, or why not. */
export function installer(): { prefix: string[] } | { why: string } {
  if (process.getuid?.() === 0) return { prefix: [] };
  const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
  if (sudo.error) return { why: 'not root, and there is no sudo' };
  return sudo.status === 0 ? { prefix: ['sudo', '-n'] } : { why: 'not root, and sudo asks for a password' };
}

function run(prefix: readonly string[], args: readonly string[]): boolean {
  const [cmd, ...rest] = [...prefix, ...args];
  const r = spawnSync(cmd!, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return r.status === 0;
}

/** 0 when the machine is ready (or cannot be checked), 1 when something is missing and could not be installed. */
export function setUp(purpose: SetupPurpose, options: { checkOnly?: boolean } = {}): number {
  const wanted = packagesFor(purpose);
  const missing = missingPackages(wanted);
  if (missing === undefined) {
    console.log(
      `setup: no dpkg here, so nothing is checked. \`npm ${purpose}\` needs: ${wanted.join(', ')} (or your system's equivalents).`,
    );
    return 0;
  }
  if (missing.length === 0) return 0;
  console.log(`setup: \`npm ${purpose}\` needs Debian packages this machine lacks:`);
  for (const pkg of missing) console.log(`  ${pkg}: ${NEEDS.find((n) => n.pkg === pkg)?.why ?? ''}`);
  const how = options.checkOnly ? { why: 'not installing (--check)' } : installer();
  if ('why' in how) {
    console.error(`\nsetup: cannot install them (${how.why}). Run this, then \`npm ${purpose}\` again:\n\n  ${installLine(missing)}\n`);
    return 1;
  }
  const started = Date.now();
  console.log(`setup: installing ${missing.join(' ')}${how.prefix.length ? ' with sudo' : ''}…`);
  if (!run(how.prefix, ['apt-get', 'update']) || !run(how.prefix, ['apt-get', 'install', '-y', '--no-install-recommends', ...missing])) {
    console.error(
      `\nsetup: apt-get failed (see above). Fix that, or run this, then \`npm ${purpose}\` again:\n\n  ${installLine(missing)}\n`,
    );
    return 1;
  }
  const still = missingPackages(missing) ?? [];
  if (still.length > 0) {
    console.error(`\nsetup: still missing after apt-get: ${still.join(' ')}. Run:\n\n  ${installLine(still)}\n`);
    return 1;
  }
  console.log(`setup: installed in ${Math.round((Date.now() - started) / 1000)} s.`);
  return 0;
}

if (require.main === module) {
  const purpose = process.argv[2];
  if (purpose !== 'start' && purpose !== 'test') {
    console.error('usage: tsx scripts/setup.ts start|test [--check]');
    process.exit(2);
  }
  process.exit(setUp(purpose, { checkOnly: process.argv.includes('--check') }));
}
