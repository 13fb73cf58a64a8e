import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BEGIN_MARKER, END_MARKER, SshConfigError, hostAlias } from '../../../src/core/ssh/config';
import { SshConfigManager, SshConfigNotWritable, sshPaths } from '../../../src/core/ssh/manager';
import { MemoryLogger } from '../../support';

/** What real ssh makes of the config for an alias (ssh -G prints the resolved options). */
function resolved(config: string, alias: string): Record<string, string> {
  const out = execFileSync('ssh', ['-G', '-F', config, alias], { encoding: 'utf8' });
  return Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]),
  );
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
    await assert.rejects(
      ssh.ensureInclude(),
      (e: unknown) =>
        e instanceof SshConfigNotWritable &&
        e.message.startsWith(`${paths.userConfig} cannot be edited`) &&
        /symbolic link/.test(e.message) &&
        e.lines.includes(`Include ${ssh.includePattern}`),
    );
    assert.equal(await readFile(join(home, 'dotfiles', 'ssh_config'), 'utf8'), USER_CONFIG);
    assert.ok((await import('node:fs/promises').then((fs) => fs.lstat(paths.userConfig))).isSymbolicLink(), 'still a link');
    assert.deepEqual(await readdir(join(home, '.ssh')), ['config'], 'no temp or lock file left');
    // Once the user has added the lines to the linked file, there is nothing to do and no error.
    await writeFile(join(home, 'dotfiles', 'ssh_config'), `${BEGIN_MARKER}\nInclude ${ssh.includePattern}\n${END_MARKER}\n${USER_CONFIG}`);
    assert.equal(await ssh.ensureInclude(), false);
  });

  it('keeps bytes that are not UTF-8 exactly: a Latin-1 comment, mixed CR LF and LF, no final newline', async () => {
    const paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    const original = Buffer.from(
      '# Caf\xe9 \xab\xa0serveurs\xa0\xbb\r\nHost work\n  HostName 10.1.2.3\n  User dev\n# \xff\xfe\x80 end',
      'latin1',
    );
    await writeFile(paths.userConfig, original);
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    const alias = hostAlias(31000002);
    await ssh.writeHost({ alias, hostName: '127.0.0.1', port: 40023, identityFile: join(home, '.ssh', 'id_ed25519') });
    const written = await readFile(paths.userConfig);
    const block = Buffer.from(`${BEGIN_MARKER}\nInclude ${ssh.includePattern}\n${END_MARKER}\n`);
    assert.deepEqual(written, Buffer.concat([block, original]), 'the block first, then the original bytes');
    assert.equal(resolved(paths.userConfig, alias).port, '40023');
    await ssh.writeHost({ alias, hostName: '127.0.0.1', port: 40024, identityFile: join(home, '.ssh', 'id_ed25519') });
    assert.deepEqual(await readFile(paths.userConfig), written, 'a second connect changes nothing');
    assert.equal(await ssh.removeInclude(), true);
    assert.deepEqual(await readFile(paths.userConfig), original, 'byte-identical after removal');
  });

  it('moves the block back to the top when the user added a Host or Match section above it, so the alias resolves again', async () => {
    const paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    const alias = hostAlias(31000003);
    const identityFile = join(home, '.ssh', 'id_ed25519');
    await ssh.writeHost({ alias, hostName: '127.0.0.1', port: 40030, identityFile });
    for (const header of ['Host other', 'host=other', '  MATCH host other']) {
      const block = await readFile(paths.userConfig);
      const mine = Buffer.from(`# added by hand\n${header}\n  User someone\n`);
      await writeFile(paths.userConfig, Buffer.concat([mine, block]));
      assert.equal(resolved(paths.userConfig, alias).hostname, alias, `${header}: ssh skips the Include inside the section`);
      await ssh.writeHost({ alias, hostName: '127.0.0.1', port: 40030, identityFile });
      const r = resolved(paths.userConfig, alias);
      assert.equal(r.hostname, '127.0.0.1', header);
      assert.equal(r.port, '40030', header);
      assert.deepEqual(
        await readFile(paths.userConfig),
        Buffer.concat([block, mine]),
        `${header}: the block first, the user's lines unchanged`,
      );
      await writeFile(paths.userConfig, block);
    }
  });

  it('refuses a read-only config (even as root) with the lines to add by hand, and writes nothing', async () => {
    const paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(paths.userConfig, USER_CONFIG);
    await chmod(paths.userConfig, 0o444);
    const before = await stat(paths.userConfig);
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    await assert.rejects(
      ssh.ensureInclude(),
      (e: unknown) =>
        e instanceof SshConfigNotWritable &&
        e.message.includes(paths.userConfig) &&
        /read-only, mode 0444/.test(e.message) &&
        e.lines.includes(`Include ${ssh.includePattern}`),
    );
    const after = await stat(paths.userConfig);
    assert.equal(await readFile(paths.userConfig, 'utf8'), USER_CONFIG);
    assert.equal(after.ino, before.ino, 'not replaced');
    assert.equal(after.mode & 0o777, 0o444);
    assert.deepEqual(await readdir(join(home, '.ssh')), ['config'], 'no temp or lock file left');
    // Lines the user added by hand to a read-only config are enough: nothing to do, no error.
    await chmod(paths.userConfig, 0o644);
    await ssh.ensureInclude();
    await chmod(paths.userConfig, 0o444);
    assert.equal(await ssh.ensureInclude(), false);
  });

  it('rewrites a hard-linked config in place, so every link still shares it', async () => {
    const paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    const other = join(home, 'dotfiles-ssh-config');
    await writeFile(other, USER_CONFIG);
    await chmod(other, 0o640);
    await link(other, paths.userConfig);
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    assert.equal(await ssh.ensureInclude(), true);
    const [a, b] = [await stat(paths.userConfig), await stat(other)];
    assert.equal(a.ino, b.ino, 'still one inode');
    assert.equal(a.nlink, 2);
    assert.equal(a.mode & 0o777, 0o640);
    const text = await readFile(other, 'utf8');
    assert.ok(text.startsWith(`${BEGIN_MARKER}\r\nInclude ${ssh.includePattern}\r\n`), 'the other name sees the block');
    assert.equal(await ssh.removeInclude(), true);
    assert.equal(await readFile(other, 'utf8'), USER_CONFIG, 'shorter content truncates the file');
    assert.equal((await stat(paths.userConfig)).ino, b.ino);
  });

  it('says clearly that a config path which is a folder cannot be used, and writes nothing', async () => {
    const paths = sshPaths(join(home, 'ssh-config-folder'), home);
    await mkdir(paths.userConfig, { recursive: true });
    const ssh = new SshConfigManager(paths, new MemoryLogger());
    for (const attempt of [
      () => ssh.ensureInclude(),
      () => ssh.writeHost({ alias: hostAlias(9), hostName: '127.0.0.1', port: 2222, identityFile: '/k' }),
      () => ssh.removeInclude(),
    ]) {
      await assert.rejects(
        attempt(),
        (e: unknown) =>
          e instanceof SshConfigError &&
          e.message.includes(`${paths.userConfig} is a folder`) &&
          /remote\.SSH\.configFile/.test(e.message) &&
          !/EISDIR/.test(e.message),
      );
    }
    assert.deepEqual(await readdir(paths.userConfig), []);
    assert.deepEqual((await readdir(home)).sort(), ['.ssh', 'ssh-config-folder'], 'no lock or temp file beside it');
    // A link to a folder says the same.
    const linked = sshPaths(join(home, 'link-to-folder'), home);
    await symlink(paths.userConfig, linked.userConfig);
    await assert.rejects(
      new SshConfigManager(linked, new MemoryLogger()).ensureInclude(),
      (e: unknown) => e instanceof SshConfigError && e.message.includes('is a folder'),
    );
  });
});
