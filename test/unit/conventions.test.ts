import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** The first commit made under CONTRIBUTING.md's rules; older subjects are history. */
const RULES_SINCE = '126619f';

function git(...args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8' });
}

function hasCommit(rev: string): boolean {
  try {
    git('rev-parse', '--verify', '--quiet', `${rev}^{commit}`);
    return true;
  } catch {
    return false;
  }
}

/** CONTRIBUTING.md's naming rule, checked so it stays true: one style for every TypeScript file. */
describe('file names', () => {
  it('are camelCase, with .test, .e2e, .bench or .d before .ts', () => {
    const files = git('ls-files', '--cached', '--others', '--exclude-standard', '*.ts').split('\n').filter(Boolean);
    assert.ok(files.length > 100, `git listed ${files.length} TypeScript files`);
    const wrong = files.filter((f) => !/^[a-z][A-Za-z0-9]*(\.(test|e2e|bench|d))?\.ts$/.test(basename(f)));
    assert.deepEqual(wrong, [], 'rename these to camelCase');
  });
});

/** CONTRIBUTING.md's commit rule: a subject of at most 72 characters, then a blank line before the body. */
describe('commit messages', () => {
  it('have subjects of at most 72 characters since the rules were written', () => {
    // A shallow clone may not reach back to RULES_SINCE: then every commit it has is checked.
    const range = hasCommit(RULES_SINCE) ? [`${RULES_SINCE}^..HEAD`] : ['HEAD'];
    const commits = git('log', '--no-merges', '--format=%h%x00%B%x01', ...range)
      .split('\x01')
      .map((c) => c.trim())
      .filter(Boolean)
      .map((c) => {
        const [hash, message = ''] = c.split('\0');
        const [subject = '', second] = message.split('\n');
        return { hash, subject, second };
      });
    assert.ok(commits.length > 0);
    const long = commits.filter((c) => c.subject.length > 72).map((c) => `${c.hash} ${c.subject.length}: ${c.subject}`);
    assert.deepEqual(long, [], 'shorten these subjects (git commit --amend before pushing)');
    const noBlank = commits.filter((c) => c.second !== undefined && c.second !== '').map((c) => `${c.hash} ${c.subject}`);
    assert.deepEqual(noBlank, [], 'leave a blank line between the subject and the body');
  });
});

/** CONTRIBUTING.md's test rule: a test that draws random numbers cannot be rerun as it failed (fast-check takes a seed). */
describe('tests', () => {
  it('draw no Math.random', () => {
    const files = git('ls-files', '--cached', '--others', '--exclude-standard', 'test/*.ts')
      .split('\n')
      .filter((f) => f && !f.startsWith('test/bench/'));
    assert.ok(files.length > 50, `git listed ${files.length} test files`);
    const drawing = files.filter((f) => /Math\.random\s*\(/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(drawing, [], 'use a counter, the process id or a seeded fast-check property');
  });
});

/** ARCHITECTURE.md's size rule: a file over 400 lines holds more than one thing; split it by meaning. */
describe('source files', () => {
  it('are at most 400 lines each', () => {
    const files = git('ls-files', '--cached', '--others', '--exclude-standard', 'src/*.ts').split('\n').filter(Boolean);
    assert.ok(files.length > 100, `git listed ${files.length} source files`);
    const long = files
      .map((f) => ({ f, lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 400)
      .map(({ f, lines }) => `${f}: ${lines}`);
    assert.deepEqual(long, [], 'split these by meaning');
  });
});

/** ARCHITECTURE.md's rooms: a command module registers commands; what lives longer than a command lives elsewhere. */
describe('command modules', () => {
  it('declare no class', () => {
    const files = git('ls-files', '--cached', '--others', '--exclude-standard', 'src/ui/commands/*.ts').split('\n').filter(Boolean);
    assert.ok(files.length > 10, `git listed ${files.length} command modules`);
    const withClass = files.filter((f) => /^\s*(export\s+)?(abstract\s+)?class\s/m.test(readFileSync(f, 'utf8')));
    assert.deepEqual(withClass, [], 'move the class to the room it belongs to (status, guards, output, host) or to core');
  });
});

/** CONTRIBUTING.md's fast loop: `npm run test:fast` leaves out the slow files by name, so a renamed one must not slip in unnoticed. */
describe('the fast tier', () => {
  it('leaves out only files and folders that exist', () => {
    const config = readFileSync('.mocharc.fast.yml', 'utf8');
    const ignore = [...config.split('ignore:')[1]!.matchAll(/^\s+- '([^']+)'$/gm)].map((m) => m[1]!);
    assert.ok(ignore.length > 5);
    const missing = ignore.filter((entry) => !existsSync(entry.replace(/\/\*\*$/, '')));
    assert.deepEqual(missing, [], 'remove or rename these in .mocharc.fast.yml');
  });
});
