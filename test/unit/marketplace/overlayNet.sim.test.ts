// An overlay's nodes are on a real private network, as on the service: each has eth0 with its
// address and a hostname of its own that resolves to it, reaches its peers and nothing else, and
// leaves nothing behind. A real engine (Debian's torch, gloo) runs across 2 and 3 of them, and a
// container started as a node is still reached through this machine's loopback.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { readBanner, waitForSshBanner } from '../../../src/core/ssh/probe';
import { runRemote } from '../../../src/core/ssh/remote';
import { Containers, containersAvailable } from '../../marketplace/container';
import type { InstanceState } from '../../marketplace/model';
import { bridgeName, nodeNetwork, OverlayNet, overlayNetAvailable, type NetNode } from '../../marketplace/overlayNet';
import { SshdPool, sshdAvailable } from '../../marketplace/sshd';
import { eventually, testSshOptions } from '../../support';

/** A python3 that has torch: GPU_RENTAL_TORCH_PYTHON, else Debian's (python3-torch), else the PATH's. */
function torchPython(): string | undefined {
  const candidates = [process.env.GPU_RENTAL_TORCH_PYTHON, '/usr/bin/python3', 'python3'].filter((p): p is string => !!p);
  return candidates.find((p) => spawnSync(p, ['-c', 'import torch'], { stdio: 'ignore', timeout: 60_000 }).status === 0);
}

const notRoot = process.getuid?.() !== 0 ? 'not root: nodes share loopback' : undefined;
const noNet = notRoot ?? (overlayNetAvailable() ? undefined : 'no network namespaces here (ip, nsenter, unshare, or the kernel)');
const python = noNet ? undefined : torchPython();
const noTorch = noNet ?? (python ? undefined : 'no python3 with torch (apt-get install python3-torch)');

/** Names of this machine's network namespaces and of its interfaces, now. */
function machineNetwork(): { netns: string[]; links: string[] } {
  const netns = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.split(' ')[0] ?? '');
  const links = spawnSync('ip', ['-o', 'link'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.split(':')[1]?.trim() ?? '');
  return { netns: netns.filter(Boolean), links: links.filter(Boolean) };
}

/** Runs argv in the node; resolves with its exit code and output, whatever the code. */
function inNode(
  net: OverlayNet,
  node: NetNode,
  argv: string[],
  children: ChildProcess[] = [],
): Promise<{ code: number | null; out: string }> {
  const [command = '', ...args] = net.command(node, argv);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OMP_NUM_THREADS: '1' } });
  children.push(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
}

/** An overlay of n nodes, 10.44.0.1 upwards, each named node<r>. */
function overlayOf(net: OverlayNet, name: string, n: number): NetNode[] {
  return Array.from({ length: n }, (_, r) =>
    net.attach(`n${r}`, nodeNetwork({ name, subnet: '10.44.0.0/24', address: `10.44.0.${r + 1}` }, `node${r}`)),
  );
}

describe('marketplace: overlay bridge names', () => {
  it('names a bridge from its overlay in at most 15 characters, distinct for long names that share a start', () => {
    assert.equal(bridgeName('train-a'), 'ov-train-a');
    const long = ['my-training-cluster-1', 'my-training-cluster-2'].map(bridgeName);
    for (const name of long) assert.ok(name.length <= 15 && name.startsWith('ov-my-trai'), name);
    assert.notEqual(long[0], long[1]);
  });

  it('refuses an address or hostname that could not be a node', () => {
    assert.throws(() => nodeNetwork({ name: 'x', subnet: '10.0.0.0/24', address: '10.0.0.300' }, 'a'), /IPv4/);
    assert.throws(() => nodeNetwork({ name: 'x', subnet: '10.0.0.0/24', address: '10.0.0.1' }, 'a b'), /hostname/);
    assert.deepEqual(nodeNetwork({ name: 'x', subnet: '10.0.0.0/24', address: '10.0.0.2' }, 'c-2'), {
      bridge: 'ov-x',
      address: '10.0.0.2',
      prefix: 24,
      hostname: 'c-2',
    });
  });
});

(noNet ? describe.skip : describe)(
  `marketplace: an overlay's nodes on a real private network${noNet ? ` (skipped: ${noNet})` : ''}`,
  function () {
    this.timeout(60_000);
    let net: OverlayNet;
    const children: ChildProcess[] = [];
    beforeEach(() => (net = new OverlayNet()));
    afterEach(() => {
      for (const child of children.splice(0)) child.kill('SIGKILL');
      net.close();
    });

    it('gives each node eth0 with its address, a hostname that resolves to it, and a path to its peers only', async () => {
      const [a, b] = overlayOf(net, 'pair', 2);
      const other = net.attach('elsewhere', nodeNetwork({ name: 'other', subnet: '10.44.0.0/24', address: '10.44.0.9' }, 'lonely'));
      const probe = String.raw`hostname; getent hosts "$(hostname)"; ip -4 -o addr show eth0 | awk '{print $4}'; ls /sys/class/net | tr '\n' ' '; echo`;
      const seen = await inNode(net, b!, ['/bin/sh', '-c', probe]);
      assert.equal(seen.code, 0, seen.out);
      const [host, resolved, address, links] = seen.out.split('\n');
      assert.equal(host, 'node1');
      assert.match(resolved ?? '', /^10\.44\.0\.2\s+node1$/);
      assert.equal(address, '10.44.0.2/24');
      assert.equal(links?.trim(), 'eth0 lo');

      // A listener on node 0's eth0: node 1 reaches it; a node of another overlay (same subnet) does not.
      const listen = `import socket; s = socket.create_server(('10.44.0.1', 4000)); print('up', flush=True); c, _ = s.accept(); c.sendall(b'hi')`;
      const [command = '', ...args] = net.command(a!, ['/usr/bin/python3', '-c', listen]);
      const server = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(server);
      await new Promise<void>((resolve) => server.stdout.once('data', () => resolve()));
      const dial = `import socket; print(socket.create_connection(('10.44.0.1', 4000), 3).recv(2).decode())`;
      const fromPeer = await inNode(net, b!, ['/usr/bin/python3', '-c', dial]);
      assert.equal(fromPeer.out.trim(), 'hi');
      const fromOther = await inNode(net, other, ['/usr/bin/python3', '-c', dial]);
      assert.notEqual(fromOther.code, 0, `another overlay's node reached it: ${fromOther.out}`);
    });

    it("leads this machine's loopback to a node's port, and the node's loopback to this machine's", async () => {
      const [node] = overlayOf(net, 'ports', 1);
      const echo = `import socket; s = socket.create_server(('127.0.0.1', 4100)); print('up', flush=True); c, _ = s.accept(); c.sendall(b'echo ' + c.recv(64)); c.close()`;
      const [command = '', ...args] = net.command(node!, ['/usr/bin/python3', '-c', echo]);
      const server = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(server);
      await new Promise<void>((resolve) => server.stdout.once('data', () => resolve()));
      const port = await freePort();
      await net.forward('n0', port, 4100);
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('ping'));
        let data = '';
        socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      assert.equal(reply, 'echo ping');

      const outside = createServer((socket) => socket.end('from this machine'));
      await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', () => resolve()));
      try {
        await net.forwardOut('n0', 4200, (outside.address() as { port: number }).port);
        const dial = `import socket; print(socket.create_connection(('127.0.0.1', 4200), 3).recv(64).decode())`;
        const seen = await inNode(net, node!, ['/usr/bin/python3', '-c', dial], children);
        assert.equal(seen.out.trim(), 'from this machine');
      } finally {
        outside.close();
      }
    });

    it('leaves no namespace, bridge or interface behind when its nodes leave and when it closes', () => {
      const before = machineNetwork();
      overlayOf(net, 'left', 2);
      const made = net.namespaces();
      assert.equal(made.length, 3, 'two nodes and the fabric');
      for (const name of made) assert.ok(machineNetwork().netns.includes(name), `${name} exists while attached`);
      net.detach('n0');
      assert.ok(!machineNetwork().netns.includes(made[0]!), 'a node that left has no namespace');
      net.close();
      const after = machineNetwork();
      for (const name of made) assert.ok(!after.netns.includes(name), `${name} is gone`);
      assert.deepEqual(after.links, before.links, "this machine's interfaces are as they were");
    });
  },
);

/** A gloo all-reduce: each rank adds rank + 1, and says what it got. */
const ALL_REDUCE = `import socket, torch, torch.distributed as dist
dist.init_process_group('gloo')
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print(f'rank={rank} world={world} sum={int(t.item())} host={socket.gethostname()}', flush=True)
dist.destroy_process_group()
`;

(noTorch ? describe.skip : describe)(`marketplace: torchrun across overlay nodes${noTorch ? ` (skipped: ${noTorch})` : ''}`, function () {
  this.timeout(240_000);
  let net: OverlayNet;
  let dir: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    net = new OverlayNet();
    dir = mkdtempSync(join(tmpdir(), 'gpu-rental-torchrun-'));
    writeFileSync(join(dir, 'allreduce.py'), ALL_REDUCE);
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    net.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const n of [2, 3]) {
    it(`all-reduces across ${n} nodes with a static rendezvous: every rank gets the sum and the world size`, async () => {
      const nodes = overlayOf(net, `torch${n}`, n);
      const runs = nodes.map((node, r) =>
        inNode(
          net,
          node,
          [
            python!,
            '-m',
            'torch.distributed.run',
            `--nnodes=${n}`,
            `--node_rank=${r}`,
            `--master_addr=${nodes[0]!.network.address}`,
            '--master_port=29500',
            '--nproc_per_node=1',
            // Debian's torch 1.13 on Python 3.11 fails at start without these two.
            '--redirects',
            '1',
            '--tee',
            '1',
            `--log_dir=${join(dir, `logs${r}`)}`,
            join(dir, 'allreduce.py'),
          ],
          children,
        ),
      );
      const results = await Promise.all(runs);
      const sum = (n * (n + 1)) / 2;
      const ranks = results.map(({ code, out }, r) => {
        assert.equal(code, 0, `node ${r} exited with ${code}:\n${out}`);
        const said = /rank=(\d+) world=(\d+) sum=(\d+) host=(\S+)/.exec(out);
        assert.ok(said, `node ${r} printed no result:\n${out}`);
        assert.equal(Number(said[2]), n, `node ${r}'s world size`);
        assert.equal(Number(said[3]), sum, `node ${r}'s sum`);
        assert.equal(said[4], `node${r}`, `rank ${said[1]} ran on node ${r}`);
        return Number(said[1]);
      });
      assert.deepEqual(
        [...ranks].sort((x, y) => x - y),
        Array.from({ length: n }, (_, i) => i),
      );
    });
  }
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

(noNet || !containersAvailable() || !sshdAvailable() ? describe.skip : describe)(
  'marketplace: a container started as a node of an overlay',
  function () {
    this.timeout(60_000);
    let dir: string;
    let containers: Containers;
    const api = createServer((socket) => socket.end('the simulator'));
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gpu-rental-overlay-node-'));
      await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', () => resolve()));
    });
    after(async () => {
      await containers?.close();
      api.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("is reached over SSH as before, sees its eth0 and hostname and this machine's API, and leaves nothing when it stops", async () => {
      const key = await generateKey(join(dir, 'key'), 'overlay-node');
      const apiPort = (api.address() as { port: number }).port;
      containers = new Containers({
        keyOf: () => 'k',
        log: () => {},
        sshd: new SshdPool(),
        onstart: false,
        loopbackPorts: () => [apiPort],
      });
      const sshPort = await freePort();
      // The fields a container's start reads, as the simulator's state has them.
      const inst = {
        id: 4242,
        runtype: 'ssh_proxy',
        image: 'ubuntu:22.04',
        diskGb: 1,
        onstart: null,
        env: [],
        jupyterToken: 't',
        sshKeys: [{ publicKey: key.publicKey }],
        endpoint: { sshPort, portMap: {}, publicIp: '127.0.0.1' },
      } as unknown as InstanceState;
      await containers.start(inst, nodeNetwork({ name: 'sshnode', subnet: '10.45.0.0/24', address: '10.45.0.7' }, 'c-4242'));
      await containers.whenReady(inst.id);
      await waitForSshBanner('127.0.0.1', sshPort, { timeoutMs: 10_000, intervalMs: 50 });
      const target = { instanceId: inst.id, alias: 'root@127.0.0.1', args: [...testSshOptions(key.privateKeyPath), '-p', String(sshPort)] };
      const probe = `hostname; getent hosts "$(hostname)"; ip -4 -o addr show eth0 | awk '{print $4}'; exec 3<>/dev/tcp/127.0.0.1/${apiPort}; head -c 13 <&3; echo`;
      const seen = await runRemote(target, probe, { timeoutMs: 20_000 });
      assert.equal(seen.code, 0, seen.stderr);
      assert.deepEqual(
        seen.stdout
          .split('\n')
          .slice(0, 4)
          .map((l) => l.replace(/\s+/g, ' ')),
        ['c-4242', '10.45.0.7 c-4242', '10.45.0.7/24', 'the simulator'],
      );
      const ours = () => machineNetwork().netns.filter((name) => name.startsWith(`gpu-rental-${process.pid}-`));
      assert.ok(
        ours().some((name) => name.endsWith('-4242')),
        'the node has its namespace while it runs',
      );
      await containers.stop(inst.id);
      assert.deepEqual(ours(), [], 'the node and its fabric are gone');
      await eventually(
        async () =>
          (await readBanner('127.0.0.1', sshPort, 1_000).then(
            () => false,
            () => true,
          )) || undefined,
        'the port to close',
        5_000,
      );
    });
  },
);
