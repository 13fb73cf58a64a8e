import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { call, obj, q, tempDirForSuite } from '../../support';

const ROOT = resolve(__dirname, '../../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
/**
 * The CLI in one node process (tsx as a loader), so a signal reaches its own handlers. Through the
 * tsx wrapper, a signal is relayed and the wrapper gives the child 30 ms to say it got it, else it
 * kills it and exits 143: on a loaded machine that race, not the CLI, decided the exit code.
 */
const NODE_WITH_TSX = [process.execPath, ['--import', 'tsx']] as const;
const CLI = join(ROOT, 'test/marketplace/cli.ts');

interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function launch(args: string[]): Promise<Running> {
  const child = spawn(NODE_WITH_TSX[0], [...NODE_WITH_TSX[1], CLI, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 15 s; stderr: ${err}`)), 15_000);
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^Marketplace listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ child, url: m[1]!, stdout: () => out, exited });
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stderr: ${err}`));
    });
  });
}

describe('marketplace: command line', function () {
  this.timeout(30_000);
  const dir = tempDirForSuite('marketplace-cli-');

  it('prints one listening line, serves, injects flag faults, and exits 0 on SIGINT with state saved', async () => {
    const state = join(dir(), 'state.json');
    const run = await launch([
      '--port',
      '0',
      '--api-key',
      'cli-key-0123456789',
      '--boot-seconds',
      '0.2',
      '--state',
      state,
      '--credit',
      '12',
      '--fault',
      '503:1',
    ]);
    const sim = { url: run.url };
    assert.equal((await call(sim, 'GET', '/api/v0/users/current/', undefined, 'cli-key-0123456789')).status, 503, 'the --fault flag');
    const user = obj(await call(sim, 'GET', '/api/v0/users/current/', undefined, 'cli-key-0123456789'));
    assert.equal(user.credit, 12, 'the credit asked for, history or not');
    const nowSec = Date.now() / 1000;
    const past = obj(
      await call(
        sim,
        'GET',
        `/api/v0/charges/?select_filters=${q({ day: { gte: nowSec - 130 * 86_400, lte: nowSec } })}`,
        undefined,
        'cli-key-0123456789',
      ),
    );
    assert.ok((past.total as number) > 20, 'months of billing history by default');
    const offers = obj(await call(sim, 'POST', '/api/v0/bundles/', { rentable: { eq: true }, limit: 1 }, 'cli-key-0123456789'))
      .offers as Array<{ id: number }>;
    assert.equal(
      (await call(sim, 'PUT', `/api/v0/asks/${offers[0]!.id}/`, { image: 'ubuntu', disk: 10, label: 'from-cli' }, 'cli-key-0123456789'))
        .status,
      200,
    );
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 0);
    assert.equal(run.stdout(), `Marketplace listening on ${run.url}\n`, 'exactly one line');
    assert.ok(existsSync(state) && readFileSync(state, 'utf8').includes('from-cli'));
    await assert.rejects(fetch(`${run.url}/api/v0/users/current/`), 'nothing listens any more');

    const again = await launch(['--port', '0', '--api-key', 'cli-key-0123456789', '--state', state, '--latency', '1']);
    const list = obj(await call({ url: again.url }, 'GET', '/api/v1/instances/', undefined, 'cli-key-0123456789')).instances as Array<{
      label: string;
    }>;
    assert.deepEqual(
      list.map((i) => i.label),
      ['from-cli'],
    );
    again.child.kill('SIGTERM');
    assert.equal((await again.exited).code, 0);
  });

  it('refuses unknown options with exit code 2', async () => {
    const child = spawn(TSX, [CLI, '--no-such-flag'], { cwd: ROOT });
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const code = await new Promise<number | null>((done) => child.on('exit', done));
    assert.equal(code, 2);
    assert.match(err, /unknown option --no-such-flag/);
  });
});
