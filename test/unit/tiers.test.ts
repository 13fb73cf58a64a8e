import assert from 'node:assert/strict';
import { guard, isStaticCheck } from '../support/noSpawn';

/** The fast tier's guard (test/support/noSpawn.ts): what it lets through and what it refuses. */
describe('the fast tier refuses processes', () => {
  const started: unknown[][] = [];
  const original = (...args: unknown[]) => {
    started.push(args);
    return 'ran';
  };
  beforeEach(() => (started.length = 0));

  it('refuses ssh, bash, git and a container, naming the process and the rename', () => {
    for (const [name, args] of [
      ['execFile', ['ssh', ['-G', 'host']]],
      ['spawnSync', ['bash', ['-c', 'true']]],
      ['execFileSync', ['git', ['log']]],
      ['spawn', ['/usr/bin/unshare', ['--mount']]],
      ['exec', ['rsync -a x y']],
    ] as const) {
      assert.throws(() => guard(name, original)(...args), /started a process \(.+\): name its file \*\.sim\.test\.ts/);
    }
    assert.deepEqual(started, []);
  });

  it('lets the static checks of text and the runner’s esbuild through', () => {
    assert.equal(guard('execFileSync', original)('shellcheck', ['-S', 'warning', 'a.sh']), 'ran');
    assert.equal(guard('spawnSync', original)('python3', ['-m', 'py_compile', 'a.py']), 'ran');
    assert.equal(guard('spawn', original)('/repo/node_modules/@esbuild/linux-x64/bin/esbuild', ['--service']), 'ran');
    assert.equal(started.length, 3);
  });

  it('a python3 that runs code is a process like any other', () => {
    assert.equal(isStaticCheck('python3', ['-c', 'import os']), false);
    assert.equal(isStaticCheck('python3', ['-m', 'http.server']), false);
    assert.throws(() => guard('spawnSync', original)('python3', ['-c', 'print(1)']), /started a process \(python3\)/);
  });
});
