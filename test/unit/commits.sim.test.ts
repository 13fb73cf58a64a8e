import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

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
