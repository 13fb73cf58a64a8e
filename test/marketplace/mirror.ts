/**
 * A code-server release mirror, for instances that download a pinned code-server with no network:
 * `GET /__mirror/code-server/releases/download/v<version>/code-server-<version>-linux-<arch>.tar.gz`
 * (and `….tar.gz.sha256`, sha256sum's line for it), as GitHub's release downloads are laid out. No
 * key: it stands for a public download site.
 *
 * The tarball is built from what this machine already has: the npm package `code-server` that
 * scripts/codeServer.ts installs (its dependencies hoisted beside it in the same node_modules) and
 * the Node binary the simulator runs on, in a real release's layout under one top folder
 * `code-server-<version>-linux-<arch>/`: `bin/code-server` (a sh script that runs
 * `lib/node out/node/entry.js`), `lib/node`, `lib/vscode/`, `out/`, `package.json`, and
 * `node_modules/` with every hoisted dependency. GNU tar reads the files where they are (its
 * `--transform` puts them under the top folder), so nothing is copied first.
 *
 * It is built once per machine, on the first request for it, into a folder of its own under
 * `cacheDir`: written under a name of this process's, then renamed whole (tarball and `.sha256`
 * together). Two simulators building at once each rename their own; the second rename fails, as
 * the folder is there, and that one keeps the first's. A build already there is reused.
 *
 * For tests, the mirror can misbehave (`set`): serve the tarball with one byte in its middle changed
 * (same length; the `.sha256` stays true), as a tampered mirror would, or break the connection
 * after some bytes, as a download that fails half-way.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  createReadStream,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { alive } from './overlayNet';

const run = promisify(execFile);

/** Where the mirror's code-server comes from and where its builds are kept. */
export interface CodeServerMirrorOptions {
  /** code-server's npm package folder (`out/node/entry.js`, `lib/vscode/`, `package.json`); its dependencies are hoisted in the node_modules folder that holds it. */
  packageDir: string;
  /** The Node binary the release carries as `lib/node` (its major must be what code-server's `engines.node` says). */
  nodeBin: string;
  /** Where the builds are kept, one folder per release. */
  cacheDir: string;
  /** The version served; any other is a 404. */
  version: string;
  /** A file that exists only once the install is complete (scripts/codeServer.ts's `.installed`). */
  installedMarker?: string;
}

/** How the mirror misbehaves for a test (see the top of this file). */
export interface MirrorBehaviour {
  /** The tarball is served with one byte in its middle changed. */
  corrupt: boolean;
  /** The connection is destroyed after this many bytes of the tarball; null: the whole. */
  failAfterBytes: number | null;
}

/** The path prefix of every release download. */
export const MIRROR_RELEASES = '/__mirror/code-server/releases/download/';

/** The release's name for this machine's (or `machine`'s) architecture; undefined where code-server has no Linux release. */
export function releaseArch(machine: string = process.arch): string | undefined {
  return ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[machine];
}

/** `code-server-<version>-linux-<arch>`: the release's top folder, and its tarball's name without `.tar.gz`. */
export function releaseName(version: string, arch: string): string {
  return `code-server-${version}-linux-${arch}`;
}

/** The path of a release's tarball on the simulator (add `.sha256` for its checksum). */
export function releasePath(version: string, arch = releaseArch() ?? 'amd64'): string {
  return `${MIRROR_RELEASES}v${version}/${releaseName(version, arch)}.tar.gz`;
}

/** A built release: its tarball, size and sha256. */
interface Release {
  file: string;
  size: number;
  sha256: string;
  /** The `.sha256` file's text. */
  line: string;
}

/** The mirror cannot build the release here (code-server missing): a 503 that says what to do. */
class Unavailable extends Error {}

const REQUEST = /^\/__mirror\/code-server\/releases\/download\/v([^/]+)\/code-server-([^/]+)-linux-([^/.]+)\.tar\.gz(\.sha256)?$/;

/** The launcher a release has: finds its own folder (through links too), then runs code-server on the Node beside it. */
const LAUNCHER = `#!/usr/bin/env sh
set -eu
me=$0
while [ -L "$me" ]; do
  link=$(readlink "$me")
  case $link in /*) me=$link ;; *) me=$(dirname "$me")/$link ;; esac
done
ROOT=$(cd "$(dirname "$me")/.." && pwd)
exec "$ROOT/lib/node" "$ROOT/out/node/entry.js" "$@"
`;

let builds = 0;

export class CodeServerMirror {
  private behaviour: MirrorBehaviour = { corrupt: false, failAfterBytes: null };
  private building?: Promise<Release>;
  private tar?: ChildProcess;
  private closed = false;

  constructor(private readonly options: CodeServerMirrorOptions | undefined) {}

  /** Sets how the mirror behaves: what `change` leaves out is back to normal. */
  set(change: Partial<MirrorBehaviour>): MirrorBehaviour {
    const { failAfterBytes = null, corrupt = false } = change;
    if (typeof corrupt !== 'boolean') throw new Error('corrupt must be true or false.');
    if (failAfterBytes !== null && !(Number.isInteger(failAfterBytes) && failAfterBytes >= 0))
      throw new Error('failAfterBytes must be a whole number of bytes >= 0, or null.');
    this.behaviour = { corrupt, failAfterBytes };
    return { ...this.behaviour };
  }

  /** Answers a request under `/__mirror/`. */
  async serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const m = REQUEST.exec(path);
    const arch = releaseArch();
    const o = this.options;
    if (m && m[1] === m[2] && !o)
      return text(res, 503, 'This simulator serves no code-server releases: it was started without the codeServerMirror option.\n');
    if (!m || m[1] !== m[2] || !o || m[1] !== o.version || !arch || m[3] !== arch) {
      const has = o && arch ? releasePath(o.version, arch) : 'no release';
      return text(res, 404, `Not Found: this mirror has ${has} (and its .sha256) only.\n`);
    }
    if (method !== 'GET' && method !== 'HEAD') return text(res, 405, 'Only GET and HEAD here.\n', { allow: 'GET, HEAD' });
    let release: Release;
    try {
      release = await this.release(o, arch);
    } catch (error) {
      if (error instanceof Unavailable) return text(res, 503, `${error.message}\n`);
      return text(res, 500, `The mirror could not build the release: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    if (res.destroyed) return;
    if (m[4]) return text(res, 200, release.line);
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(release.size) });
    if (method === 'HEAD') return void res.end();
    this.stream(res, release);
  }

  /** Stops a build under way (its temporary folder goes with it). */
  close(): void {
    this.closed = true;
    if (this.tar?.pid !== undefined && this.tar.exitCode === null) {
      try {
        process.kill(-this.tar.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** Sends the tarball as the mirror behaves now; the file stream ends when the client goes. */
  private stream(res: ServerResponse, release: Release): void {
    const { corrupt, failAfterBytes } = this.behaviour;
    const flip = corrupt ? Math.floor(release.size / 2) : -1;
    const file = createReadStream(release.file);
    res.once('close', () => file.destroy());
    file.once('error', () => res.destroy());
    file.once('end', () => res.end());
    let sent = 0;
    // The bytes before the break reach the client, then the connection ends before Content-Length's.
    const breakWith = (last: Buffer) => {
      file.destroy();
      res.flushHeaders();
      if (last.length === 0) res.destroy();
      else res.write(last, () => res.destroy());
    };
    if (failAfterBytes === 0) return breakWith(Buffer.alloc(0));
    file.on('data', (data: string | Buffer) => {
      let chunk = Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (flip >= sent && flip < sent + chunk.length) {
        chunk = Buffer.from(chunk);
        chunk[flip - sent] = chunk[flip - sent]! ^ 0xff;
      }
      if (failAfterBytes !== null && sent + chunk.length >= failAfterBytes) return breakWith(chunk.subarray(0, failAfterBytes - sent));
      sent += chunk.length;
      if (!res.write(chunk)) {
        file.pause();
        res.once('drain', () => file.resume());
      }
    });
  }

  /** The release, built first when this machine has none yet (once per simulator at a time). */
  private release(o: CodeServerMirrorOptions, arch: string): Promise<Release> {
    const name = releaseName(o.version, arch);
    const cached = readRelease(join(o.cacheDir, name), name);
    if (cached) return Promise.resolve(cached);
    this.building ??= this.build(o, arch).finally(() => (this.building = undefined));
    return this.building;
  }

  private async build(o: CodeServerMirrorOptions, arch: string): Promise<Release> {
    await checkInstalled(o);
    if (this.closed) throw new Unavailable('The simulator is stopping.');
    const name = releaseName(o.version, arch);
    const final = join(o.cacheDir, name);
    mkdirSync(o.cacheDir, { recursive: true });
    removeAbandonedBuilds(o.cacheDir);
    const temp = join(o.cacheDir, `.${name}.${process.pid}.${++builds}.tmp`);
    try {
      // The two files a release has that the package does not: the launcher and the Node binary.
      const stage = join(temp, 'stage');
      mkdirSync(join(stage, 'bin'), { recursive: true });
      mkdirSync(join(stage, 'lib'));
      writeFileSync(join(stage, 'bin', 'code-server'), LAUNCHER, { mode: 0o755 });
      try {
        linkSync(o.nodeBin, join(stage, 'lib', 'node'));
      } catch {
        copyFileSync(o.nodeBin, join(stage, 'lib', 'node'));
      }
      const modules = dirname(o.packageDir);
      const deps = readdirSync(modules)
        .filter((d) => !d.startsWith('.') && d !== basename(o.packageDir))
        .sort();
      const extras = ['LICENSE', 'README.md', 'ThirdPartyNotices.txt', 'npm-shrinkwrap.json'].filter((f) =>
        existsSync(join(o.packageDir, f)),
      );
      const file = join(temp, `${name}.tar.gz`);
      await this.runTar([
        '-c',
        '-f',
        file,
        '-I',
        'gzip -n -1',
        '--owner=0',
        '--group=0',
        '--numeric-owner',
        // Every name under the top folder; a link's target stays as it is.
        `--transform=s,^,${name}/,S`,
        '-C',
        stage,
        'bin',
        'lib',
        '-C',
        o.packageDir,
        'lib/vscode',
        'out',
        'package.json',
        ...extras,
        '-C',
        dirname(modules),
        ...deps.map((d) => `${basename(modules)}/${d}`),
      ]);
      rmSync(stage, { recursive: true, force: true });
      const sha256 = await sha256Of(file);
      writeFileSync(`${file}.sha256`, `${sha256}  ${name}.tar.gz\n`);
      try {
        renameSync(temp, final);
      } catch (error) {
        // Another simulator renamed its build first: keep that one.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      }
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
    const release = readRelease(final, name);
    if (!release) throw new Error(`${final} is there but incomplete (its tarball or .sha256 is missing): remove it`);
    return release;
  }

  private runTar(args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      // In a process group of its own with its gzip, so that close() ends both.
      const tar = spawn('tar', args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      this.tar = tar;
      let errors = '';
      tar.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString('utf8')).slice(-2000)));
      tar.once('error', reject);
      tar.once('close', (code, signal) => {
        if (this.tar === tar) this.tar = undefined;
        if (code === 0) resolve();
        else if (this.closed) reject(new Unavailable('The simulator stopped while it built the release.'));
        else reject(new Error(`tar exited with ${code ?? signal}: ${errors.trim()}`));
      });
    });
  }
}

/** Throws Unavailable, saying what to do, unless the package and Node are there and fit. */
async function checkInstalled(o: CodeServerMirrorOptions): Promise<void> {
  const entry = join(o.packageDir, 'out', 'node', 'entry.js');
  const installed =
    existsSync(entry) && existsSync(join(o.packageDir, 'lib', 'vscode')) && (!o.installedMarker || existsSync(o.installedMarker));
  if (!installed)
    throw new Unavailable(
      `code-server ${o.version} is not installed at ${o.packageDir}: run \`npx tsx scripts/codeServer.ts install\` (once, about 2 minutes), then ask again.`,
    );
  const pkg = JSON.parse(readFileSync(join(o.packageDir, 'package.json'), 'utf8')) as { version?: string; engines?: { node?: string } };
  if (pkg.version !== o.version) throw new Unavailable(`${o.packageDir} holds code-server ${pkg.version}, not ${o.version}.`);
  const wanted = /\d+/.exec(pkg.engines?.node ?? '')?.[0];
  let version: string;
  try {
    version = (await run(o.nodeBin, ['--version'], { timeout: 10_000 })).stdout.trim();
  } catch (error) {
    throw new Unavailable(`The Node binary ${o.nodeBin} does not run: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Its native modules are built for that Node: another major would not load them.
  if (wanted && /^v?(\d+)/.exec(version)?.[1] !== wanted)
    throw new Unavailable(`code-server ${o.version} needs Node ${wanted}; ${o.nodeBin} is Node ${version}.`);
}

/** A complete build in `folder` (its tarball and `.sha256` both there), or undefined. */
function readRelease(folder: string, name: string): Release | undefined {
  const file = join(folder, `${name}.tar.gz`);
  try {
    const line = readFileSync(`${file}.sha256`, 'utf8');
    const sha256 = /^([0-9a-f]{64}) {2}/.exec(line)?.[1];
    if (!sha256) return undefined;
    return { file, size: statSync(file).size, sha256, line };
  } catch {
    return undefined;
  }
}

/** Removes the temporary folders of builds whose process is gone (a killed run). */
function removeAbandonedBuilds(cacheDir: string): void {
  for (const entry of readdirSync(cacheDir)) {
    const pid = /^\..+\.(\d+)\.\d+\.tmp$/.exec(entry)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !alive(Number(pid)))
      rmSync(join(cacheDir, entry), { recursive: true, force: true });
  }
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .once('error', reject)
      .once('end', () => resolve(hash.digest('hex')));
  });
}

/** A short plain-text answer (Node's server sends no body to a HEAD). */
function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const bytes = Buffer.from(body);
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(bytes.length), ...headers });
  res.end(bytes);
}
