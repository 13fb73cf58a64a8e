import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostAlias } from '../../../src/core/ssh/config';
import { SshConfigManager, SshConfigNotWritable, sshPaths } from '../../../src/core/ssh/manager';
import { MemoryLogger } from '../support';

/** What real ssh makes of the config for an alias (ssh -G prints the resolved options). */
function resolved(config: string, alias: string): Record<string, string> {
  const out = execFileSync('ssh', ['-G', '-F', config, alias], { encoding: 'utf8' });
  return Object.fromEntries(out.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));
}

describe('SSH config manager (real files, real ssh -G)', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rental-home-'));
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const USER_CONFIG = 'Host *\r\n  ServerAliveInterval 60\r\n\r\nHost work\r\n  HostName 10.1.2.3\r\n  User dev\r\n# no final newline';

  it('writes an entry ssh resolves, keeps the user config byte-identical outside the block, and cleans up', async () => {
    const paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(paths.userConfig, USER_CONFIG);
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    const alias = hostAlias(31000001);
    await ssh.writeHost({ alias, hostName: '127.0.0.1', port: 40022, identityFile: join(home, '.ssh', 'id_ed25519') });
    const r = resolved(paths.userConfig, alias);
    assert.equal(r.hostname, '127.0.0.1');
    assert.equal(r.port, '40022');
    assert.equal(r.user, 'root');
    assert.equal(r.identitiesonly, 'yes');
    assert.equal(r.userknownhostsfile, ssh.knownHostsFile(alias));
    assert.equal(resolved(paths.userConfig, 'work').hostname, '10.1.2.3', "the user's own hosts still resolve");
    assert.equal((await stat(paths.managedDir)).mode & 0o777, 0o700);
    assert.equal((await stat(ssh.hostFile(alias))).mode & 0o777, 0o600);

    // A restart moved the instance: the entry is rewritten, the Include is not added twice.
    await ssh.writeHost({ alias, hostName: '127.0.0.1', port: 40099, identityFile: join(home, '.ssh', 'id_ed25519') });
    assert.equal(resolved(paths.userConfig, alias).port, '40099');
    const text = await readFile(paths.userConfig, 'utf8');
    assert.equal(text.split('Include ').length, 2);

    await ssh.removeHost(alias);
    await ssh.removeInclude();
    assert.equal(await readFile(paths.userConfig, 'utf8'), USER_CONFIG, 'byte-identical after connect and destroy');
  });

  it('honours remote.SSH.configFile and creates a missing config', async () => {
    const paths = sshPaths('~/custom/ssh_config', home);
    assert.equal(paths.userConfig, join(home, 'custom', 'ssh_config'));
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    await ssh.writeHost({ alias: hostAlias(5), hostName: 'ssh4.example.net', port: 12345, identityFile: '/k' });
    assert.equal(resolved(paths.userConfig, hostAlias(5)).hostname, 'ssh4.example.net');
  });

  it('never replaces a config that is a link kept by a dotfile tool, and says what to add', async () => {
    const paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    await mkdir(join(home, 'dotfiles'));
    await writeFile(join(home, 'dotfiles', 'ssh_config'), USER_CONFIG);
    await symlink(join(home, 'dotfiles', 'ssh_config'), paths.userConfig);
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    await assert.rejects(ssh.ensureInclude(), (e: unknown) => e instanceof SshConfigNotWritable && e.lines.includes(`Include ${ssh.includePattern}`) && /dotfile/.test(e.message));
    assert.equal(await readFile(join(home, 'dotfiles', 'ssh_config'), 'utf8'), USER_CONFIG);
  });
});
