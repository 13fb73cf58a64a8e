import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';

/** CONTRIBUTING.md's naming rule, checked so it stays true: one style for every TypeScript file. */
describe('file names', () => {
  it('are camelCase, with .test, .e2e, .bench or .d before .ts', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    assert.ok(files.length > 100, `git listed ${files.length} TypeScript files`);
    const wrong = files.filter((f) => !/^[a-z][A-Za-z0-9]*(\.(test|e2e|bench|d))?\.ts$/.test(basename(f)));
    assert.deepEqual(wrong, [], 'rename these to camelCase');
  });
});
