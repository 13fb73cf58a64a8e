import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Instance } from '../../../src/core/api/instances';
import { nodeLabel } from '../../../src/core/rent/clusterPick';
import { SshConfigError, hostAlias, hostEntryText, parseHostAlias } from '../../../src/core/ssh/config';
import { SshConnector, type SshKeyCalls } from '../../../src/core/ssh/connector';
import type { LocalKey } from '../../../src/core/ssh/localKeys';
import { SshConfigManager, sshPaths, type SshPaths } from '../../../src/core/ssh/manager';
import { MAX_NODE_SLUG, aliasSlug, nodeAlias, withoutHostName } from '../../../src/core/ssh/nodeAlias';
import { MemoryLogger } from '../../support';

/** What real ssh makes of the config for a name (ssh -G prints the resolved options). */
function resolved(config: string, name: string): Record<string, string> {
  const out = execFileSync('ssh', ['-G', '-F', config, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]),
  );
}

describe('cluster node SSH names: slugging and refusals', () => {
  it("names a Rent Cluster node's label, profile-aware like the id alias", () => {
    assert.equal(nodeAlias(nodeLabel('train', 1)), 'gpu-rental-train-node1');
    assert.equal(nodeAlias('train-node1', 'work'), 'gpu-rental-work-train-node1');
    assert.equal(nodeAlias('train-node1', 'My Work'), 'gpu-rental-my-work-train-node1', 'the profile part is slugged as hostAlias does');
    assert.equal(nodeAlias('Llama Fine-Tune #3-node12'), 'gpu-rental-llama-fine-tune-3-node12');
    assert.equal(nodeAlias('Über__Run-node0'), 'gpu-rental-uber-run-node0', 'accents dropped, runs collapsed');
    assert.equal(nodeAlias('  train..x-node2'), 'gpu-rental-train-x-node2', 'leading junk trimmed');
  });

  it('gives no friendly name to a label without the node form, an empty cluster part, a long slug, or an id-like name', () => {
    for (const label of [
      undefined,
      null,
      '',
      'train',
      'train-node',
      'train-nodeX',
      'trainnode1',
      'train-node12345',
      'train-node1 ',
      'node1',
    ])
      assert.equal(nodeAlias(label), undefined, String(label));
    assert.equal(nodeAlias('日本-node0'), undefined, 'a bare node0 would be shared by every such cluster');
    assert.equal(nodeAlias('!!!-node0'), undefined);
    const longest = `${'a'.repeat(MAX_NODE_SLUG - '-node1'.length)}-node1`;
    assert.equal(nodeAlias(longest), `gpu-rental-${longest}`);
    assert.equal(nodeAlias(`a${longest}`), undefined, 'one character over the limit is refused, never cut');
  });

  it('every friendly name is a safe ssh word that parseHostAlias never reads as an instance (property)', () => {
    const piece = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('123', '-', ' ', 'Ä', '9-9', 'node7', '\n', '#', '*'));
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 4 }),
        fc.nat({ max: 9999 }),
        fc.option(fc.constantFrom('work', 'team-2', 'x')),
        (parts, k, p) => {
          const profile = p ?? undefined;
          const label = `${parts.join('')}-node${k}`;
          const name = nodeAlias(label, profile);
          if (name === undefined) return;
          assert.match(name, /^gpu-rental-[a-z0-9]+(?:-[a-z0-9]+)*-node\d+$/);
          assert.ok(name.startsWith(hostAlias(0, profile).slice(0, -1)), 'the profile part of the id alias');
          assert.equal(parseHostAlias(name), undefined, name);
          assert.ok(aliasSlug(label).length <= MAX_NODE_SLUG);
        },
      ),
      { seed: 26, numRuns: 500 },
    );
  });

  it('writes the friendly name as the second name of the Host line, and refuses an unusable one', () => {
    const base = { alias: hostAlias(31000002), hostName: '10.0.0.9', port: 40022, identityFile: '/k', knownHostsFile: '/h' };
    const text = hostEntryText({ ...base, friendlyAlias: 'gpu-rental-train-node1' });
    assert.equal(text.split('\n')[0], 'Host gpu-rental-31000002 gpu-rental-train-node1');
    assert.equal(hostEntryText(base).split('\n')[0], 'Host gpu-rental-31000002');
    for (const bad of ['gpu-rental-31000003', 'gpu-rental-31000002', 'x y', 'x\nProxyCommand sh', '-oProxyCommand', ''])
      assert.throws(() => hostEntryText({ ...base, friendlyAlias: bad }), SshConfigError, JSON.stringify(bad));
  });

  it('takes one name off a Host line and leaves every other byte as it was', () => {
    const file = '# c\r\nHost gpu-rental-5 gpu-rental-train-node1\r\n  HostName h\r\n';
    assert.deepEqual(withoutHostName(file, 'gpu-rental-train-node1'), {
      text: '# c\r\nHost gpu-rental-5\r\n  HostName h\r\n',
      changed: true,
    });
    assert.deepEqual(withoutHostName(file, 'gpu-rental-train-node2'), { text: file, changed: false });
    assert.equal(withoutHostName('Host=gpu-rental-train-node1  gpu-rental-5\n', 'GPU-RENTAL-TRAIN-NODE1').text, 'Host=gpu-rental-5\n');
    const only = 'Host gpu-rental-train-node1\n';
    assert.deepEqual(withoutHostName(only, 'gpu-rental-train-node1'), { text: only, changed: false }, 'never an empty Host line');
  });
});

describe('cluster node SSH names in the managed folder (real files, real ssh -G)', () => {
  let home: string;
  let paths: SshPaths;
  let ssh: SshConfigManager;
  let logger: MemoryLogger;
  const key = (home: string) => join(home, '.ssh', 'id_ed25519');
  const USER_CONFIG = 'Host *\n  ServerAliveInterval 60\n\nHost mine\n  HostName 10.1.2.3\n';

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'gpu-rental-node-alias-'));
    paths = sshPaths(undefined, home);
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(paths.userConfig, USER_CONFIG);
    logger = new MemoryLogger();
    ssh = new SshConfigManager(paths, logger);
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it('ssh resolves the friendly name to the same entry as the id alias, with that instance’s own known hosts', async () => {
    await ssh.writeHost({
      alias: hostAlias(31000001),
      hostName: '10.0.0.1',
      port: 40001,
      identityFile: key(home),
      friendlyAlias: 'gpu-rental-train-node0',
    });
    await ssh.writeHost({
      alias: hostAlias(31000002),
      hostName: '10.0.0.2',
      port: 40002,
      identityFile: key(home),
      friendlyAlias: 'gpu-rental-train-node1',
    });
    const node1 = resolved(paths.userConfig, 'gpu-rental-train-node1');
    assert.equal(node1.hostname, '10.0.0.2');
    assert.equal(node1.port, '40002');
    assert.equal(node1.userknownhostsfile, ssh.knownHostsFile(hostAlias(31000002)), 'known hosts stay keyed by the id alias');
    assert.equal(resolved(paths.userConfig, 'gpu-rental-train-node0').port, '40001');
    assert.equal(resolved(paths.userConfig, hostAlias(31000002)).port, '40002', 'the id alias still resolves');
    assert.deepEqual(
      (await readdir(paths.managedDir)).filter((f) => f.includes('node')),
      [],
      'no file is named after a friendly name',
    );
  });

  it('a second instance taking the same friendly name removes it from the first, and ssh follows', async () => {
    const first = hostAlias(31000001);
    const second = hostAlias(31000009);
    await ssh.writeHost({
      alias: first,
      hostName: '10.0.0.1',
      port: 40001,
      identityFile: key(home),
      friendlyAlias: 'gpu-rental-train-node1',
    });
    const other = join(home, '.ssh', 'elsewhere.conf');
    const userOwn = `${USER_CONFIG}Host gpu-rental-train-node1\n  HostName 192.0.2.1\n`;
    await writeFile(other, userOwn);
    await ssh.writeHost({
      alias: second,
      hostName: '10.0.0.9',
      port: 40009,
      identityFile: key(home),
      friendlyAlias: 'gpu-rental-train-node1',
    });

    const firstText = await readFile(ssh.hostFile(first), 'utf8');
    assert.match(firstText, /^Host gpu-rental-31000001\n/m);
    assert.doesNotMatch(firstText, /train-node1/);
    assert.match(firstText, /^ {2}Port 40001$/m, 'the rest of its entry as it was');
    assert.equal(resolved(paths.userConfig, 'gpu-rental-train-node1').port, '40009');
    assert.equal(resolved(paths.userConfig, first).port, '40001');
    assert.equal(await readFile(other, 'utf8'), userOwn, 'nothing outside the managed folder is touched');
    assert.ok(logger.lines.some((l) => l.includes('gpu-rental-train-node1') && l.includes(first) && l.includes(second)));

    // Rewriting the first without its name (relabelled) leaves the second's alone.
    await ssh.writeHost({ alias: first, hostName: '10.0.0.1', port: 40001, identityFile: key(home) });
    assert.equal(resolved(paths.userConfig, 'gpu-rental-train-node1').port, '40009');
  });

  it('removing an instance removes its friendly name with it', async () => {
    const alias = hostAlias(31000001);
    await ssh.writeHost({ alias, hostName: '10.0.0.1', port: 40001, identityFile: key(home), friendlyAlias: 'gpu-rental-train-node1' });
    await ssh.removeHost(alias);
    assert.equal(resolved(paths.userConfig, 'gpu-rental-train-node1').hostname, 'gpu-rental-train-node1', 'ssh no longer knows the name');
    assert.deepEqual(
      (await readdir(paths.managedDir)).filter((f) => !f.startsWith('.')),
      [],
      'no entry, known hosts or lock left behind',
    );
  });

  it("Connect writes a node's friendly name beside its id alias; a plain instance gets none", async () => {
    const calls: SshKeyCalls = {
      list: async () => [{ id: 1, public_key: 'ssh-ed25519 AAAA test' }] as Awaited<ReturnType<SshKeyCalls['list']>>,
      create: async () => assert.fail('the key is on the account'),
      listForInstance: async () => [{ id: 1, public_key: 'ssh-ed25519 AAAA test' }] as Awaited<ReturnType<SshKeyCalls['list']>>,
      attach: async () => assert.fail('the key is on the instance'),
    };
    const local: LocalKey = { privateKeyPath: key(home), publicKey: 'ssh-ed25519 AAAA test' } as LocalKey;
    const connector = new SshConnector({
      keys: () => calls,
      config: () => ssh,
      findKey: async () => local,
      createKey: async () => undefined,
      logger,
      profile: () => 'work',
    });
    const node = { id: 31000004, label: 'train-node2', ssh_host: '10.0.0.4', ssh_port: 40004 } as Instance;
    const host = await connector.prepare(node);
    assert.equal(host.alias, 'gpu-rental-work-31000004', 'Remote-SSH and the terminal keep the id alias');
    assert.equal(host.friendlyAlias, 'gpu-rental-work-train-node2');
    assert.equal(resolved(paths.userConfig, 'gpu-rental-work-train-node2').port, '40004');

    const plain = await connector.prepare({ id: 31000005, label: 'notebook', ssh_host: '10.0.0.5', ssh_port: 40005 } as Instance);
    assert.equal(plain.friendlyAlias, undefined);
    assert.match(await readFile(ssh.hostFile(plain.alias), 'utf8'), /^Host gpu-rental-work-31000005\n/m);
  });
});
