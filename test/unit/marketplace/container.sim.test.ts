// Each running simulator instance is a container of its own: what a session starts dies with the
// instance, its files are its own and survive stop and start, nothing lands on this machine, and
// PID 1 holds the container's variables, as on the service.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sshEndpoint } from '../../../src/core/instances/ssh';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { readBanner, waitForSshBanner } from '../../../src/core/ssh/probe';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { containersAvailable } from '../../marketplace/container';
import { sshdAvailable } from '../../marketplace/sshd';
import {
  clientFor,
  containerPath,
  containerSuite,
  control,
  DEMO_KEY,
  eventually,
  instanceIn,
  processesWith,
  reachableInstance,
  rentableOffers,
  simulatorForSuite,
  sshdGone,
  startSimulator,
  tempDirForSuite,
  testSshOptions,
} from '../../support';

const run = promisify(execFile);

/** A word no other process or file on this machine has. */
let uniques = 0;
const unique = () => `${process.pid}${Date.now() % 100_000}${uniques++}`;

(sshdAvailable() ? describe : describe.skip)('marketplace: each running instance is a container', function () {
  this.timeout(60_000);
  const kit = containerSuite('container-test', { onstart: true, seed: 41 });
  const { sim, home, rent, reach } = kit;

  async function sh(target: SshTarget, command: string): Promise<string> {
    const result = await runRemote(target, command, { timeoutMs: 20_000 });
    assert.equal(result.code, 0, `${command}: ${result.stderr}`);
    return result.stdout;
  }

  async function restart(id: number): Promise<SshTarget> {
    await kit.client.instances.stop(id);
    await instanceIn(kit.client, id, 'stopped', 10_000);
    await kit.client.instances.start(id);
    return reach(id);
  }

  it('kills a setsid nohup job when the instance stops, and when it is destroyed', async () => {
    const token = `1000.${unique()}`;
    const detach = `setsid nohup sleep ${token} >/dev/null 2>&1 </dev/null & echo started`;
    const { id, target } = await rent();
    assert.equal((await sh(target, detach)).trim(), 'started');
    await eventually(async () => processesWith(token) === 1 || undefined, 'the job to run', 5_000);
    await kit.client.instances.stop(id);
    await eventually(async () => processesWith(token) === 0 || undefined, 'stop to kill the job', 5_000);

    await kit.client.instances.start(id);
    await sh(await reach(id), detach);
    await eventually(async () => processesWith(token) === 1 || undefined, 'the second job to run', 5_000);
    await kit.client.instances.destroy(id);
    await eventually(async () => processesWith(token) === 0 || undefined, 'destroy to kill the job', 5_000);
  });

  it('ends the processes at a reboot and keeps the files', async () => {
    const token = `1000.${unique()}`;
    const { id, target } = await rent();
    await sh(target, `echo kept > /workspace/r.txt; setsid nohup sleep ${token} >/dev/null 2>&1 </dev/null &`);
    await eventually(async () => processesWith(token) === 1 || undefined, 'the job to run', 5_000);
    await kit.client.instances.reboot(id);
    await eventually(async () => processesWith(token) === 0 || undefined, 'the reboot to end the job', 5_000);
    assert.equal(await sh(await reach(id), 'cat /workspace/r.txt'), 'kept\n');
    await kit.client.instances.destroy(id);
  });

  it('keeps /root and /workspace across stop and start; two instances do not share them; nothing reaches this machine', async () => {
    const name = `gpu-rental-mark-${unique()}`;
    const a = await rent();
    const b = await rent();
    await sh(a.target, `echo in-root > /root/${name} && echo in-workspace > /workspace/${name} && echo in-tmp > /tmp/${name}`);
    assert.equal(existsSync(`/root/${name}`), false, "this machine's /root is untouched");
    assert.equal(existsSync(`/workspace/${name}`), false, "this machine's /workspace is untouched");
    assert.equal(existsSync(`/tmp/${name}`), false, "this machine's /tmp is untouched");
    assert.equal(readFileSync(containerPath(sim, a.id, `/workspace/${name}`), 'utf8'), 'in-workspace\n');
    assert.equal(await sh(b.target, `ls -A /root /workspace /tmp | grep -c ${name} || true`), '0\n', 'the other instance sees none of it');

    // A file put on the host side shows inside, as tests that check uploads need.
    writeFileSync(containerPath(sim, b.id, `/workspace/${name}.put`), 'put\n');
    assert.equal(await sh(b.target, `cat /workspace/${name}.put`), 'put\n');

    const again = await restart(a.id);
    assert.equal(await sh(again, `cat /root/${name} /workspace/${name}`), 'in-root\nin-workspace\n', 'kept across stop and start');
    assert.equal(await sh(again, 'echo "$HOME"; pwd'), '/root\n/root\n');
    await kit.client.instances.destroy(a.id);
    await eventually(async () => !existsSync(containerPath(sim, a.id, '/workspace')) || undefined, 'destroy to remove the store', 5_000);
    await kit.client.instances.destroy(b.id);
  });

  it("holds the container's variables in PID 1, not in the session; its key stops the instance with curl from inside", async () => {
    const { id, target } = await rent();
    const environ = await sh(target, "tr '\\0' '\\n' < /proc/1/environ");
    assert.match(environ, new RegExp(`^CONTAINER_ID=${id}$`, 'm'));
    assert.match(environ, new RegExp(`^VAST_CONTAINERLABEL=C\\.${id}$`, 'm'));
    assert.match(environ, /^CONTAINER_API_KEY=\S{16,}$/m);
    assert.doesNotMatch(environ, new RegExp(DEMO_KEY), "the account's key is not the container's");
    assert.equal(await sh(target, 'echo "${CONTAINER_API_KEY:-none}"'), 'none\n', 'an ssh session does not inherit it');
    assert.match(
      (await sh(target, 'ps -e -o pid=,comm= | head -1')).trim(),
      /^1 bash$/,
      'the init is PID 1 and the container sees its own processes',
    );

    const stop =
      `K=$(tr '\\0' '\\n' < /proc/1/environ | sed -n 's/^CONTAINER_API_KEY=//p'); ` +
      `curl -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $K" -H 'Content-Type: application/json' ` +
      `-d '{"state":"stopped"}' ${sim.url}/api/v0/instances/${id}/`;
    const answered = await runRemote(target, stop, { timeoutMs: 20_000 });
    // The stop ends the container, and the session with it: the answer may or may not get back.
    assert.ok(answered.stdout === '200' || answered.code === 255, `curl: ${answered.stdout} ${answered.stderr}`);
    await instanceIn(kit.client, id, 'stopped', 10_000);
    await kit.client.instances.destroy(id);
  });

  it('has a disk of the rented size; the control route shrinks it, and a write then finds it full', async () => {
    const { id, target } = await rent({ disk: 12 });
    const size = Number(await sh(target, 'df -B1 --output=size /workspace | tail -1'));
    assert.equal(size, 12 * 1024 ** 3);
    assert.deepEqual(await control(sim, 'POST', `/instances/${id}/disk`, { bytes: 1024 * 1024 }), { success: true, bytes: 1024 * 1024 });
    const full = await runRemote(target, 'head -c 3000000 /dev/zero > /workspace/big', { timeoutMs: 20_000 });
    assert.notEqual(full.code, 0);
    assert.match(full.stderr, /No space left on device/);
    await kit.client.instances.destroy(id);
  });

  it('takes uploads by scp (sftp) and rsync over ssh into its own /workspace', async () => {
    const { id, target } = await rent();
    const local = join(home(), `upload-${unique()}.txt`);
    writeFileSync(local, 'uploaded\n');
    const port = String(target.endpoint.port);
    const ssh = testSshOptions(kit.keyPath);
    await run('scp', [...ssh, '-P', port, local, `${target.alias}:/workspace/by-scp.txt`]);
    await run('rsync', ['-a', '-e', ['ssh', ...ssh, '-p', port].join(' '), local, `${target.alias}:/workspace/by-rsync.txt`]);
    assert.equal(readFileSync(containerPath(sim, id, '/workspace/by-scp.txt'), 'utf8'), 'uploaded\n');
    assert.equal(readFileSync(containerPath(sim, id, '/workspace/by-rsync.txt'), 'utf8'), 'uploaded\n');
    await kit.client.instances.destroy(id);
  });

  it('an image named minimal has no rsync and no tmux; another image has both', async () => {
    const bare = await rent({ image: 'example/minimal:1.0' });
    assert.equal(await sh(bare.target, 'command -v rsync || echo none; command -v tmux || echo none'), 'none\nnone\n');
    if (existsSync('/usr/bin/rsync') && existsSync('/usr/bin/tmux')) {
      const full = await rent();
      assert.equal(await sh(full.target, 'command -v rsync; command -v tmux'), '/usr/bin/rsync\n/usr/bin/tmux\n');
      await kit.client.instances.destroy(full.id);
    }
    await kit.client.instances.destroy(bare.id);
  });
});

(sshdAvailable() ? describe : describe.skip)(
  'marketplace: without namespaces (a laptop), an instance still has a HOME of its own',
  function () {
    this.timeout(60_000);
    const sim = simulatorForSuite({ ssh: true, onstart: true, bootSeconds: 0.2, seed: 42, isolate: false });
    const home = tempDirForSuite('gpu-rental-plain-test-');

    it("gives the start-up script and each SSH session the store's root folder as HOME", async () => {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const key = await generateKey(join(home(), 'key'), 'plain');
      await client.sshKeys.create(key.publicKey);
      const [offer] = await client.offers.search({
        query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
        limit: 1,
      });
      const { instanceId: id } = await client.instances.create(offer!.id, {
        image: 'ubuntu:22.04',
        disk: 8,
        onstart: 'echo from-script > ~/script.txt',
      });
      const target = await reachableInstance(client, id, key.privateKeyPath);
      const result = await runRemote(target, 'echo "$HOME"; pwd; echo from-session > ~/session.txt', { timeoutMs: 20_000 });
      assert.equal(result.code, 0, result.stderr);
      const store = containerPath(sim, id, '/root');
      assert.equal(result.stdout, `${store}\n${store}\n`);
      assert.equal(readFileSync(join(store, 'session.txt'), 'utf8'), 'from-session\n');
      await eventually(async () => existsSync(join(store, 'script.txt')) || undefined, 'the script to write to its HOME', 5_000);
      await client.instances.destroy(id);
    });
  },
);

/** A process on this machine: its program, its parent and its PID namespace. */
interface Proc {
  pid: number;
  program: string;
  ppid: number;
  pidNamespace: string;
}

/** The processes on this machine whose command line has `word` as an argument. */
function processesWithArgument(word: string): Proc[] {
  const found: Proc[] = [];
  for (const d of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (!argv.includes(word)) continue;
      // The command name may hold spaces or parentheses: the fields after its closing one are fixed.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      found.push({ pid: Number(d), program: argv[0] ?? '', ppid, pidNamespace: readlinkSync(`/proc/${d}/ns/pid`) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** How many processes on this machine are in PID namespace `ns` (a container's). */
function processesIn(ns: string): number {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((d) => {
      try {
        return readlinkSync(`/proc/${d}/ns/pid`) === ns;
      } catch {
        return false;
      }
    }).length;
}

/** Rejects when `promise` takes longer than `ms`, so a hang fails the test instead of stalling the run. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

(sshdAvailable() && containersAvailable() ? describe : describe.skip)('marketplace: a container whose init outlived unshare', function () {
  this.timeout(60_000);

  it("still ends at a stop and at the simulator's stop, within seconds, and leaves no process", async () => {
    const sim = await startSimulator({ ssh: true, bootSeconds: 0.2, seed: 43 });
    let stopped = false;
    try {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const orphans: Array<{ id: number; store: string; init: Proc; host: string; port: number }> = [];
      for (const offer of await rentableOffers(client, 2)) {
        const { instanceId: id } = await client.instances.create(offer.id, { image: 'ubuntu:22.04', disk: 8 });
        const endpoint = sshEndpoint(await instanceIn(client, id, 'running', 15_000))!;
        await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
        const store = dirname(containerPath(sim, id, '/root'));
        // unshare's arguments hold the init's; the init's subshells have its own.
        const tree = processesWithArgument(store);
        const init = tree.find((p) => p.program === '/bin/bash' && tree.some((u) => u.pid === p.ppid && u.program === '/usr/bin/unshare'));
        assert.ok(init, `the init of instance ${id} runs under unshare: ${JSON.stringify(tree)}`);
        // What happened when unshare died before its child set the parent-death signal: the init
        // lives on under this machine's PID 1 with its sshd, holding the simulator's pipes.
        process.kill(init.ppid, 'SIGKILL');
        await eventually(
          async () => processesWithArgument(store).find((p) => p.pid === init.pid)?.ppid !== init.ppid || undefined,
          'the init to be reparented',
          5_000,
        );
        assert.match(await readBanner(endpoint.host, endpoint.port, 2_000), /^SSH-2\.0-/, 'its sshd still answers');
        orphans.push({ id, store, init, host: endpoint.host, port: endpoint.port });
      }
      const [first, second] = orphans as [(typeof orphans)[0], (typeof orphans)[0]];

      await client.instances.stop(first.id);
      await eventually(async () => processesIn(first.init.pidNamespace) === 0 || undefined, 'the stop to end the container', 5_000);
      await sshdGone(first.host, first.port);

      const started = Date.now();
      await within(sim.stop(), 8_000, "the simulator's stop");
      stopped = true;
      assert.ok(Date.now() - started < 5_000, `the simulator stopped in ${Date.now() - started} ms`);
      // The killed init may be a zombie for a moment, until this machine's PID 1 reaps it.
      await eventually(async () => processesIn(second.init.pidNamespace) === 0 || undefined, 'nothing to be left in the container', 2_000);
      await eventually(async () => processesWithArgument(second.store).length === 0 || undefined, 'no init to be left', 2_000);
      await sshdGone(second.host, second.port);
    } finally {
      if (!stopped) await sim.stop();
    }
  });
});
