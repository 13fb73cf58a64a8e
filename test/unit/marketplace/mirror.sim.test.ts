// The simulator's code-server release mirror (test/marketplace/mirror.ts): a release tarball in a
// real release's layout, built once per machine from the code-server that scripts/codeServer.ts
// installs, with its sha256 beside it; a tampered copy or a broken download on demand. The build
// logic runs first on a small fake package (everywhere, in seconds); the real release only where
// code-server is installed (its first build takes about 15 s).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { get, request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CODE_SERVER_DIR, CODE_SERVER_VERSION } from '../../../scripts/paths';
import { spawnTracked, waitForLine } from '../../../scripts/processes';
import { releaseArch, releaseName, releasePath, type CodeServerMirrorOptions } from '../../marketplace/mirror';
import { call, control, simulatorForSuite, startSimulator, tempDirForSuite } from '../../support';

const run = promisify(execFile);
const ARCH = releaseArch() ?? 'amd64';
const OTHER_ARCH = ARCH === 'amd64' ? 'arm64' : 'amd64';

interface Download {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: number;
  sha256: string;
  /** Whether the whole body came (false: the connection broke first). */
  complete: boolean;
  text: string;
}

/** GETs (or HEADs) `url`, hashing the body as it streams, and saves it to `saveTo` when given. */
function download(url: string, o: { saveTo?: string; method?: string } = {}): Promise<Download> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET' }, (res) => {
      const hash = createHash('sha256');
      const file = o.saveTo && res.statusCode === 200 ? createWriteStream(o.saveTo) : undefined;
      let bytes = 0;
      let head = '';
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
        if (head.length < 4096) head += chunk.toString('latin1');
        file?.write(chunk);
      });
      res.once('error', () => {});
      res.once('close', () => {
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes,
            sha256: hash.digest('hex'),
            complete: res.complete,
            text: head,
          });
        if (file) file.end(done);
        else done();
      });
    });
    req.once('error', reject);
    req.end();
  });
}

/** A small stand-in for an npm install of code-server: the package, hoisted dependencies, and a "node" that says its version. */
function fakeInstall(root: string, o: { version?: string; nodeVersion?: string } = {}): CodeServerMirrorOptions {
  const modules = join(root, 'node_modules');
  const pkg = join(modules, 'code-server');
  const files: Record<string, string> = {
    [join(pkg, 'package.json')]: JSON.stringify({ name: 'code-server', version: o.version ?? '9.9.9', engines: { node: '24' } }),
    [join(pkg, 'out', 'node', 'entry.js')]: 'console.log("entry")\n',
    [join(pkg, 'lib', 'vscode', 'package.json')]: '{}',
    [join(pkg, 'lib', 'vscode', 'node_modules', 'tool', 'cli.js')]: '',
    [join(pkg, 'LICENSE')]: 'MIT\n',
    [join(pkg, 'src', 'left-out.ts')]: '',
    [join(modules, 'express', 'package.json')]: '{"name":"express"}',
    [join(modules, '@scope', 'dep', 'index.js')]: '',
    [join(modules, '.package-lock.json')]: '{}',
    [join(root, '.installed')]: 'yes',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
  mkdirSync(join(modules, '.bin'));
  symlinkSync('../express/package.json', join(modules, '.bin', 'express'));
  mkdirSync(join(pkg, 'lib', 'vscode', 'node_modules', '.bin'));
  symlinkSync('../tool/cli.js', join(pkg, 'lib', 'vscode', 'node_modules', '.bin', 'tool'));
  // The launcher runs `lib/node out/node/entry.js "$@"`: this one says what it was given.
  const nodeBin = join(root, 'node');
  writeFileSync(nodeBin, `#!/bin/sh\n[ "$1" = --version ] && { echo ${o.nodeVersion ?? 'v24.0.0'}; exit 0; }\necho "ran $*"\n`, {
    mode: 0o755,
  });
  return {
    packageDir: pkg,
    nodeBin,
    cacheDir: join(root, 'cache'),
    version: o.version ?? '9.9.9',
    installedMarker: join(root, '.installed'),
  };
}

describe('marketplace: the code-server release mirror', function () {
  this.timeout(60_000);
  const home = tempDirForSuite('gpu-rental-mirror-fake-', { each: true });

  it('builds a release in its layout from the package, once, and two simulators building at once keep one', async () => {
    const mirror = fakeInstall(home());
    const [a, b] = [await startSimulator({ codeServerMirror: mirror }), await startSimulator({ codeServerMirror: mirror })];
    try {
      const path = releasePath('9.9.9', ARCH);
      const [fromA, fromB] = await Promise.all([download(a.url + path + '.sha256'), download(b.url + path + '.sha256')]);
      assert.equal(fromA.status, 200, fromA.text);
      assert.equal(fromA.text, fromB.text, 'both answer the one release kept');
      const name = releaseName('9.9.9', ARCH);
      assert.deepEqual(readdirSync(mirror.cacheDir), [name], 'one release folder, no temporary one left');
      const file = join(mirror.cacheDir, name, `${name}.tar.gz`);
      const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
      assert.equal(fromA.text, `${sha}  ${name}.tar.gz\n`);
      const built = statSync(file);
      const tarball = await download(a.url + path);
      assert.equal(tarball.sha256, sha);
      assert.equal(tarball.headers['content-type'], 'application/gzip');
      assert.equal(Number(tarball.headers['content-length']), built.size);

      const listed = (await run('tar', ['-tvzf', file])).stdout;
      const names = listed.split('\n').map((line) => line.split(/\s+/).slice(5).join(' '));
      for (const want of [
        'bin/code-server',
        'lib/node',
        'lib/vscode/package.json',
        'lib/vscode/node_modules/.bin/tool -> ../tool/cli.js',
        'out/node/entry.js',
        'package.json',
        'LICENSE',
        'node_modules/express/package.json',
        'node_modules/@scope/dep/index.js',
      ])
        assert.ok(names.includes(`${name}/${want}`), `${want} in:\n${listed}`);
      for (const not of ['node_modules/.bin', 'node_modules/.package-lock.json', 'node_modules/code-server', 'src'])
        assert.ok(!names.some((n) => n.startsWith(`${name}/${not}`)), `no ${not}`);
      assert.match(listed, new RegExp(`^-rwxr-xr-x .* ${name}/bin/code-server$`, 'm'));

      // Its launcher finds its folder through a link too, and runs out/node/entry.js on lib/node.
      const out = join(home(), 'out');
      mkdirSync(out);
      await run('tar', ['-xzf', file, '-C', out]);
      symlinkSync(join(out, name, 'bin', 'code-server'), join(out, 'cs'));
      assert.equal((await run(join(out, 'cs'), ['--version', 'x y'])).stdout, `ran ${join(out, name)}/out/node/entry.js --version x y\n`);

      // A third simulator reuses the build.
      const c = await startSimulator({ codeServerMirror: mirror });
      try {
        assert.equal((await download(c.url + path + '.sha256')).text, fromA.text);
        assert.equal(statSync(file).mtimeMs, built.mtimeMs, 'not built again');
      } finally {
        await c.stop();
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('answers 404 for another version or arch, 405 for another method, 503 when code-server is missing', async () => {
    const mirror = fakeInstall(home());
    const sim = await startSimulator({ codeServerMirror: mirror });
    try {
      for (const path of [
        releasePath('9.9.8', ARCH),
        releasePath('9.9.9', OTHER_ARCH),
        `${releasePath('9.9.9', ARCH)}.md5`,
        '/__mirror/',
      ]) {
        const answer = await download(sim.url + path);
        assert.equal(answer.status, 404, path);
        assert.match(String(answer.headers['content-type']), /^text\/plain/);
        assert.match(answer.text, new RegExp(releasePath('9.9.9', ARCH).replace(/\./g, '\\.')));
      }
      assert.equal((await download(sim.url + releasePath('9.9.9', ARCH), { method: 'POST' })).status, 405);
      assert.ok(!existsSync(mirror.cacheDir), 'none of these built anything');
    } finally {
      await sim.stop();
    }
    for (const missing of [
      { ...mirror, packageDir: join(home(), 'nowhere') },
      { ...mirror, installedMarker: join(home(), 'not-yet') },
      fakeInstall(join(home(), 'old-node'), { nodeVersion: 'v20.1.0' }),
      undefined,
    ]) {
      const other = await startSimulator({ codeServerMirror: missing });
      try {
        const answer = await download(other.url + releasePath('9.9.9', ARCH));
        assert.equal(answer.status, 503, answer.text);
        const why = !missing
          ? /without the codeServerMirror option/
          : missing.nodeBin.includes('old-node')
            ? /needs Node 24/
            : /npx tsx scripts\/codeServer\.ts install/;
        assert.match(answer.text, why);
      } finally {
        await other.stop();
      }
    }
  });

  it('takes its misbehaviour from POST /__control/mirror, and refuses what it cannot do', async () => {
    const sim = await startSimulator({ codeServerMirror: fakeInstall(home()) });
    try {
      assert.deepEqual(await control(sim, 'POST', 'mirror', { corrupt: true }), {
        success: true,
        mirror: { corrupt: true, failAfterBytes: null },
      });
      assert.deepEqual(
        await control(sim, 'POST', 'mirror', { failAfterBytes: 10 }),
        { success: true, mirror: { corrupt: false, failAfterBytes: 10 } },
        'what a call leaves out is normal again',
      );
      for (const bad of [{ failAfterBytes: -1 }, { failAfterBytes: 'x' }, { corrupt: 'yes' }])
        assert.equal((await call(sim, 'POST', '/__control/mirror', bad, null)).status, 400, JSON.stringify(bad));
      assert.deepEqual(sim.control.setMirror({}), { corrupt: false, failAfterBytes: null });
    } finally {
      await sim.stop();
    }
  });
});

/** Processes whose command line names something under `dir`. */
function processesUnder(dir: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

(existsSync(join(CODE_SERVER_DIR, '.installed')) ? describe : describe.skip)('marketplace: the real code-server release', function () {
  // The first build on a machine takes about 15 s, then come downloads and an extraction of 270 MB.
  this.timeout(180_000);
  const sim = simulatorForSuite();
  const home = tempDirForSuite('gpu-rental-mirror-');
  const name = releaseName(CODE_SERVER_VERSION, ARCH);
  const path = releasePath(CODE_SERVER_VERSION, ARCH);
  const saved = () => join(home(), `${name}.tar.gz`);
  let tarball: Download;
  let line: string;

  before(async () => {
    tarball = await download(sim.url + path, { saveTo: saved() });
    line = (await download(`${sim.url}${path}.sha256`)).text;
  });
  afterEach(() => sim.control.setMirror({}));

  it('serves the tarball whole, and a .sha256 that matches it', () => {
    assert.equal(tarball.status, 200, tarball.text.slice(0, 500));
    assert.ok(tarball.complete);
    assert.equal(Number(tarball.headers['content-length']), tarball.bytes);
    assert.equal(line, `${tarball.sha256}  ${name}.tar.gz\n`);
  });

  it('holds a release: bin/code-server, lib/node, out/, node_modules/ under one top folder', async () => {
    const listed = new Set((await run('tar', ['-tzf', saved()], { maxBuffer: 64 * 1024 * 1024 })).stdout.split('\n'));
    for (const want of ['bin/code-server', 'lib/node', 'out/node/entry.js', 'package.json', 'node_modules/express/package.json'])
      assert.ok(listed.has(`${name}/${want}`), want);
    assert.deepEqual([...new Set([...listed].filter(Boolean).map((n) => n.split('/')[0]))], [name]);
  });

  it('answers another arch with a 404, and HEAD with the length alone', async () => {
    assert.equal((await download(sim.url + releasePath(CODE_SERVER_VERSION, OTHER_ARCH))).status, 404);
    const head = await download(sim.url + path, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers['content-length']), tarball.bytes);
    assert.equal(head.bytes, 0);
  });

  it('serves a tampered tarball while corrupt: the same length, another sha256, the same .sha256', async () => {
    await control(sim, 'POST', 'mirror', { corrupt: true });
    const spoiled = await download(sim.url + path);
    assert.ok(spoiled.complete);
    assert.equal(spoiled.bytes, tarball.bytes);
    assert.notEqual(spoiled.sha256, tarball.sha256);
    assert.equal((await download(`${sim.url}${path}.sha256`)).text, line);
  });

  it('breaks the download after failAfterBytes', async () => {
    sim.control.setMirror({ failAfterBytes: 1_000_000 });
    const broken = await download(sim.url + path);
    assert.equal(broken.status, 200);
    assert.equal(Number(broken.headers['content-length']), tarball.bytes, 'it promised the whole');
    assert.equal(broken.complete, false);
    assert.equal(broken.bytes, 1_000_000);
  });

  it('extracts to a code-server that starts and asks for its password', async () => {
    const root = join(home(), 'extracted');
    mkdirSync(root);
    await run('tar', ['-xzf', saved(), '-C', root]);
    const dirs = Object.fromEntries(['config', 'data', 'cache', 'tmp', 'user-data', 'extensions'].map((d) => [d, join(root, d)]));
    for (const dir of Object.values(dirs)) mkdirSync(dir);
    const config = join(root, 'config.yaml');
    writeFileSync(config, 'bind-addr: 127.0.0.1:0\nauth: password\npassword: x\ncert: false\n');
    const bin = join(root, name, 'bin', 'code-server');
    const args = ['--config', config, '--user-data-dir', dirs['user-data']!, '--extensions-dir', dirs.extensions!, '--disable-telemetry'];
    const env = {
      ...process.env,
      XDG_CONFIG_HOME: dirs.config!,
      XDG_DATA_HOME: dirs.data!,
      XDG_CACHE_HOME: dirs.cache!,
      TMPDIR: dirs.tmp!,
    };
    const child = spawnTracked(bin, [...args, '--disable-update-check', root], { env });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const [, origin] = await waitForLine(child, /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//, 30_000, 'code-server');
      const answer = await new Promise<{ status: number; location?: string }>((resolve, reject) =>
        get(`${origin}/`, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        }).once('error', reject),
      );
      assert.deepEqual(answer, { status: 302, location: './login' });
    } finally {
      // Its whole process group, then nothing of it may be left.
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          // gone
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        for (let i = 0; i < 50 && processesUnder(root).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
        if (processesUnder(root).length === 0) break;
      }
    }
    assert.deepEqual(processesUnder(root), [], 'every process of the code-server ended');
  });
});
