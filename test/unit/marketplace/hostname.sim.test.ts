// Each isolated container has a hostname of its own, `c-<id>` (as an overlay node has), in its own
// UTS namespace, and resolves it from its own /etc/hosts, so a lookup of its name never waits on DNS.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { sshdAvailable } from '../../marketplace/sshd';
import { containerSuite, instanceIn } from '../../support';

(sshdAvailable() ? describe : describe.skip)('marketplace: each container has its own hostname', function () {
  this.timeout(60_000);
  // containerSuite skips the suite, saying why, when instances are not isolated containers here.
  const kit = containerSuite('hostname-test', { seed: 43 });

  async function sh(target: SshTarget, command: string): Promise<string> {
    const result = await runRemote(target, command, { timeoutMs: 20_000 });
    assert.equal(result.code, 0, `${command}: ${result.stderr}`);
    return result.stdout;
  }

  it('is c-<id>, not this machine’s, and resolves at once from its own /etc/hosts', async () => {
    const machineHosts = readFileSync('/etc/hosts', 'utf8');
    const machineName = hostname();
    const [a, b] = [await kit.rent(), await kit.rent()];
    for (const { id, target } of [a, b]) {
      const name = `c-${id}`;
      assert.notEqual(name, machineName);
      const started = Date.now();
      const out = await sh(target, 'hostname; cat /proc/sys/kernel/hostname; getent hosts "$(hostname)"');
      const [shown, kernel, resolved = ''] = out.trim().split('\n');
      assert.equal(shown, name, out);
      assert.equal(kernel, name, out);
      assert.match(resolved, new RegExp(`^127\\.0\\.1\\.1\\s+${name}$`), out);
      assert.ok(Date.now() - started < 10_000, 'the lookup did not wait on DNS');
      const hosts = await sh(target, 'cat /etc/hosts');
      assert.ok(hosts.startsWith(machineHosts), "its /etc/hosts starts with the machine's");
      assert.match(hosts, new RegExp(`^127\\.0\\.1\\.1\\t${name}$`, 'm'));
    }
    // Neither container's name reached this machine: its hostname and /etc/hosts are as they were.
    assert.equal(readFileSync('/etc/hosts', 'utf8'), machineHosts);
    assert.equal(hostname(), machineName);
  });

  it('keeps its name across a stop and start, and its /etc/hosts stays its own', async () => {
    const { id, target } = await kit.rent();
    // Written only into a file that is its own (it names it), never into this machine's, whatever broke.
    await sh(target, `grep -q 'c-${id}$' /etc/hosts && echo "10.9.9.9 written-inside" >> /etc/hosts`);
    assert.ok(!readFileSync('/etc/hosts', 'utf8').includes('written-inside'), "the machine's /etc/hosts is untouched");
    await kit.client.instances.stop(id);
    await instanceIn(kit.client, id, 'stopped', 10_000);
    await kit.client.instances.start(id);
    const again = await kit.reach(id);
    assert.equal((await sh(again, 'hostname')).trim(), `c-${id}`);
    // A new start is a new container: what the last one wrote in its /etc/hosts is gone.
    assert.ok(!(await sh(again, 'cat /etc/hosts')).includes('written-inside'));
  });
});
