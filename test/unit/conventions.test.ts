import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Folders that hold no source of ours: packages, builds, tools, and git's own. */
const SKIP = new Set(['node_modules', '.git', 'dist', 'out', '.vscode-test', 'coverage']);

/**
 * The repository's files under `dir` whose names match `pattern`, as paths from the root, read
 * from the disk (no git: this file runs in the fast tier, which starts no process).
 */
function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '.' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : files(path, pattern);
    return pattern.test(path) ? [path] : [];
  });
}

/** CONTRIBUTING.md's naming rule, checked so it stays true: one style for every TypeScript file. */
describe('file names', () => {
  it('are camelCase, with .test, .sim.test, .e2e, .bench or .d before .ts', () => {
    const all = files('.', /\.ts$/);
    assert.ok(all.length > 100, `found ${all.length} TypeScript files`);
    const wrong = all.filter((f) => !/^[a-z][A-Za-z0-9]*(\.(test|sim\.test|e2e|bench|d))?\.ts$/.test(basename(f)));
    assert.deepEqual(wrong, [], 'rename these to camelCase');
  });
});

/** CONTRIBUTING.md's test rule: a test that draws random numbers cannot be rerun as it failed (fast-check takes a seed). */
describe('tests', () => {
  it('draw no Math.random', () => {
    const tests = files('test', /\.ts$/).filter((f) => !f.startsWith('test/bench/'));
    assert.ok(tests.length > 50, `found ${tests.length} test files`);
    const drawing = tests.filter((f) => /Math\.random\s*\(/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(drawing, [], 'use a counter, the process id or a seeded fast-check property');
  });
});

/** ARCHITECTURE.md's size rule: a file over 400 lines holds more than one thing; split it by meaning. */
describe('source files', () => {
  it('are at most 400 lines each', () => {
    const sources = files('src', /\.ts$/);
    assert.ok(sources.length > 100, `found ${sources.length} source files`);
    const long = sources
      .map((f) => ({ f, lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 400)
      .map(({ f, lines }) => `${f}: ${lines}`);
    assert.deepEqual(long, [], 'split these by meaning');
  });
});

/** ARCHITECTURE.md's ui floors: command(...) and the registry stand on ui's ground, so every room may use them without reaching into commands/. */
describe('ui rooms', () => {
  it('the registry imports nothing of src/ui, and only the composition root (and main.ts, which takes the bodies) reaches into commands/', () => {
    const registry = readFileSync('src/ui/registry.ts', 'utf8');
    assert.deepEqual(
      [...registry.matchAll(/from '(\.[^']*)'/g)].map((m) => m[1]).filter((s) => !s!.startsWith('../core/')),
      [],
    );
    const reaching = files('src', /\.ts$/).filter(
      (f) =>
        !f.startsWith('src/ui/commands/') &&
        !['src/ui/services.ts', 'src/main.ts'].includes(f) &&
        /from '[^']*commands\/[^']*'/.test(readFileSync(f, 'utf8')),
    );
    assert.deepEqual(reaching, [], 'import command() from src/ui/registry.ts, or move what you need out of commands/');
  });
});

/** ARCHITECTURE.md's rooms: a command module registers commands; what lives longer than a command lives elsewhere. */
describe('command modules', () => {
  it('declare no class', () => {
    const modules = files('src/ui/commands', /\.ts$/);
    assert.ok(modules.length > 10, `found ${modules.length} command modules`);
    const withClass = modules.filter((f) => /^\s*(export\s+)?(abstract\s+)?class\s/m.test(readFileSync(f, 'utf8')));
    assert.deepEqual(withClass, [], 'move the class to the room it belongs to (status, guards, output, host) or to core');
  });
});

/**
 * CONTRIBUTING.md's tiers, chosen by file name: a unit test that starts a process or a container
 * is named *.sim.test.ts and runs in `npm run test:sim`; the rest run in `npm run test:fast`, where
 * test/support/noSpawn.ts fails any test that starts a process anyway.
 */
describe('the test tiers', () => {
  const yaml = (path: string) => readFileSync(path, 'utf8');

  it('the fast tier takes every unit test but the *.sim ones, with the guard loaded first', () => {
    const fast = yaml('.mocharc.fast.yml');
    assert.match(fast, /spec:\n {2}- 'test\/unit\/\*\*\/\*\.test\.ts'\n/);
    assert.match(fast, /ignore:\n {2}- 'test\/unit\/\*\*\/\*\.sim\.test\.ts'\n/);
    assert.match(fast, /require:\n( {2}- .*\n)* {2}- test\/support\/noSpawn\.ts\n/);
    assert.doesNotMatch(fast, /ignore:\n(\s+- .*\n)*\s+- '(?!test\/unit\/\*\*\/\*\.sim\.test\.ts)/, 'no file is left out by hand');
  });

  it('the simulator tier takes exactly the *.sim ones', () => {
    assert.match(yaml('.mocharc.sim.yml'), /spec:\n {2}- 'test\/unit\/\*\*\/\*\.sim\.test\.ts'\n/);
  });

  it('a test that imports child_process says so in its name', () => {
    const module = ['node', 'child_process'].join(':');
    const spawning = files('test/unit', /\.test\.ts$/).filter(
      (f) => !f.endsWith('.sim.test.ts') && readFileSync(f, 'utf8').includes(`from '${module}'`),
    );
    assert.deepEqual(spawning, [], 'rename these to *.sim.test.ts (static checks of text go through test/support/staticChecks.ts)');
  });
});
