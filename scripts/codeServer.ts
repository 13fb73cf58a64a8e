// code-server (VS Code 1.139 as a server) on loopback: installed on demand into .vscode-test/,
// started with its own throw-away user-data and extensions folders.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CODE_SERVER_DIR, CODE_SERVER_VERSION, NODE24_DIR, NODE_BIN, REPO } from './paths';
import { freePort, spawnTracked, trackTempDir, waitForHttp } from './processes';

const INSTALL_DIR = CODE_SERVER_DIR;
const MARKER = join(INSTALL_DIR, '.installed');
const ENTRY = join(INSTALL_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

/** Installs the pinned code-server from the npm registry once; later runs reuse it. */
export function ensureCodeServer(): string {
  if (existsSync(MARKER) && existsSync(ENTRY)) return ENTRY;
  const headers = join(NODE24_DIR, 'include', 'node', 'common.gypi');
  if (!existsSync(headers)) {
    // A later `npm install` prunes the Node 24 headers that the `node` package installed; its install script restores them.
    console.log('Restoring the Node 24 headers (npm rebuild node)…');
    execFileSync('npm', ['rebuild', 'node'], { cwd: REPO, stdio: 'inherit' });
  }
  console.log(`Installing code-server ${CODE_SERVER_VERSION} (VS Code 1.139) into .vscode-test/ (about 2 minutes and 620 MB, once)…`);
  const started = Date.now();
  // No marker means no install or a half one (interrupted, failed build): start again from nothing.
  rmSync(INSTALL_DIR, { recursive: true, force: true });
  mkdirSync(INSTALL_DIR, { recursive: true });
  writeFileSync(join(INSTALL_DIR, 'package.json'), JSON.stringify({ name: 'code-server-cache', private: true }));
  // Drop the npm_* variables of the `npm test` that started us: the outer npm may run on the
  // machine's Node 20, and code-server's install script reads the Node version from
  // npm_config_user_agent.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  const env = {
    ...inherited,
    // Its engines field wants Node 24, and its native modules must build against Node 24's headers.
    PATH: `${join(REPO, 'node_modules', 'node', 'bin')}:${process.env.PATH ?? ''}`,
    npm_config_nodedir: NODE24_DIR,
  };
  const result = spawnSync(
    'npm',
    ['install', '--no-save', '--no-fund', '--no-audit', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`],
    { cwd: INSTALL_DIR, env, stdio: 'inherit' },
  );
  if (result.status !== 0 || !existsSync(ENTRY)) {
    throw new Error(
      `Installing code-server failed (exit ${result.status}). It needs Debian's libkrb5-dev, python3, make and g++ ("npm run setup" installs them).`,
    );
  }
  writeFileSync(MARKER, new Date().toISOString());
  console.log(`code-server ${CODE_SERVER_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s.`);
  return ENTRY;
}

export interface CodeServerOptions {
  /** Throw-away folders are made when these are not given. */
  userDataDir?: string;
  extensionsDir?: string;
  port?: number;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
  /** .vsix files installed before the server starts. */
  install?: string[];
  /**
   * A home folder of its own: the extension's SSH keys, config and known hosts go there, never
   * into the developer's ~/.ssh. ssh itself reads the account's ~/.ssh/config whatever $HOME says,
   * so `remote.SSH.configFile` names the sandbox's config (the extension passes it to ssh -F).
   */
  home?: string;
  /**
   * The display language (`--locale`). VS Code keeps English unless a language pack for it is
   * installed (test/harness/pseudoLocale.ts makes one for the pseudo locale qps-ploc).
   */
  locale?: string;
  /**
   * Built-in extensions (their folder names under lib/vscode/extensions) the server leaves out: it
   * starts with a built-in extensions folder of links to all the others.
   */
  withoutBuiltins?: string[];
  /**
   * VS Code's smoke-test driver (`enable-smoke-test-driver`). With it the workbench never shows a
   * notification as a toast (they go straight to the notification center), so it is for tests that
   * read the center; `npm start` leaves it off and shows VS Code as users get it.
   */
  smokeTestDriver?: boolean;
}

export interface CodeServer {
  port: number;
  origin: string;
  userDataDir: string;
  extensionsDir: string;
  /** The workbench URL for a folder, optionally with an extension-development payload. */
  url(folder: string, payload?: Array<[string, string]>): string;
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const entry = ensureCodeServer();
  const userDataDir = options.userDataDir ?? trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-user-')));
  const extensionsDir = options.extensionsDir ?? trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-ext-')));
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const sandbox: Record<string, unknown> = {};
  if (options.home) {
    mkdirSync(join(options.home, '.ssh'), { recursive: true, mode: 0o700 });
    sandbox['remote.SSH.configFile'] = join(options.home, '.ssh', 'config');
  }
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...QUIET_SETTINGS, ...sandbox, ...options.settings }, null, 2),
  );
  const base = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  const env = { ...process.env, ...privateDirs(), ...(options.home ? { HOME: options.home } : {}), ...options.env };
  for (const vsix of options.install ?? []) {
    const r = spawnSync(NODE_BIN, [entry, ...base, '--install-extension', vsix, '--force'], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`code-server could not install ${vsix}:\n${r.stdout}\n${r.stderr}`);
  }
  const port = options.port ?? (await freePort());
  const args = [
    entry,
    ...base,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...(options.locale ? ['--locale', options.locale] : []),
    ...(options.withoutBuiltins?.length ? ['--builtin-extensions-dir', builtinsWithout(options.withoutBuiltins)] : []),
  ];
  const child = spawnTracked(NODE_BIN, args, { env });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const origin = `http://127.0.0.1:${port}`;
  await Promise.race([
    waitForHttp(`${origin}/healthz`, 60_000, 'code-server'),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`code-server exited (${code}):\n${output}`)))),
  ]);
  return {
    port,
    origin,
    userDataDir,
    extensionsDir,
    url(folder, payload) {
      const params = new URLSearchParams({ folder });
      if (payload) params.set('payload', JSON.stringify(payload));
      return `${origin}/?${params.toString()}`;
    },
  };
}

/**
 * code-server writes its config.yaml and heartbeat under the XDG folders, and the built-in git
 * extension leaves a socket in the temp folder on every start. Point all three at a folder that
 * cleanup removes, so nothing accumulates in ~ or /tmp. The extension host inherits these.
 */
function privateDirs(): Record<string, string> {
  const root = trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-cs-')));
  const dirs = {
    TMPDIR: join(root, 'tmp'),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CACHE_HOME: join(root, 'cache'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  return dirs;
}

/** A vscode-remote URI for a path on the code-server host, as the payload needs it. */
export function remoteUri(server: CodeServer, path: string): string {
  return `vscode-remote://127.0.0.1:${server.port}${path}`;
}

/** The tail of each extension-host log (`logs/<time>/exthost<N>/remoteexthost.log`), for a run that stalled. */
export function extensionHostLog(server: CodeServer, chars = 4000): string {
  return logTails(server, /exthost\.log$/, chars) || '(no extension host log)';
}

/** The tail of GPU Rental's own log (its output channel, `.../output_logging_<time>/<N>-GPU Rental.log`), for a failed test. */
export function gpuRentalLog(server: CodeServer, chars = 6000): string {
  return logTails(server, /-GPU Rental\.log$/, chars) || '(no GPU Rental log)';
}

/** The tails of the log files under code-server's logs folder whose names match. */
function logTails(server: CodeServer, name: RegExp, chars: number): string {
  const logs = join(server.userDataDir, 'logs');
  if (!existsSync(logs)) return '';
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (name.test(e.name)) found.push(p);
    }
  };
  walk(logs);
  return found.map((f) => `--- ${f}\n${readFileSync(f, 'utf8').slice(-chars)}`).join('\n');
}

/** A folder of links to code-server's built-in extensions but `left`, for --builtin-extensions-dir. */
function builtinsWithout(left: string[]): string {
  const all = join(INSTALL_DIR, 'node_modules', 'code-server', 'lib', 'vscode', 'extensions');
  const dir = trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-builtins-')));
  const names = readdirSync(all, { withFileTypes: true });
  for (const name of left)
    if (!names.some((e) => e.name === name)) throw new Error(`code-server ${CODE_SERVER_VERSION} has no built-in extension ${name}`);
  // Every entry but those left out: the extensions, and the node_modules and package.json they share.
  for (const e of names) if (!left.includes(e.name)) symlinkSync(join(all, e.name), join(dir, e.name));
  return dir;
}

/** Settings that keep the workbench quiet in tests and demos: no welcome page, no tours, no telemetry. */
export const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

// `tsx scripts/codeServer.ts install`: the one-time install alone (npm test runs it beside the lint).
if (require.main === module && process.argv[2] === 'install') {
  ensureCodeServer();
}
