/**
 * The private network of an overlay, made real: as root, the instances of one overlay share a Linux
 * bridge, and each has a network namespace of its own whose `eth0` (one end of a veth pair, the
 * other on the bridge) holds its address from the overlay's subnet, as on the service. Each node
 * also gets its own hostname (a UTS namespace) that resolves to that address through an /etc/hosts
 * of its own (a bind mount in its mount namespace): c10d rendezvous and gloo find a node's address
 * from its hostname, and nodes that share this machine's hang.
 *
 * The bridges and the bridge ends of the veths live in a namespace of their own per OverlayNet (the
 * "fabric"), not in this machine's: two simulators on one machine (parallel tests, the same seed,
 * the same overlay names and subnets) never meet, and this machine's `ip link` never changes.
 * Namespaces are named `gpu-rental-<pid>-<n>-…`; `close()` removes them all, and a later OverlayNet
 * removes those of a process that died without closing (a killed test run).
 *
 * A node's own processes run through `command()`: `nsenter` into its network namespace, then new
 * mount and UTS namespaces that set its hostname, its /etc/hosts and a /sys that shows its own
 * interfaces. This machine reaches a port a node listens on at 127.0.0.1 through `forward()`: a
 * listener on this machine's 127.0.0.1 that hands each connection, as it is, to a small relay
 * started inside the node (so an sshd in the node keeps its loopback port, and its port forwards and
 * sessions see the node's network).
 *
 * Without root (or without `ip`, `nsenter`, `unshare`, or a kernel that lets us make namespaces)
 * `overlayNetAvailable()` is false, and the simulator's nodes share this machine's loopback.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash32 } from './random';

/** Where a node sits on its overlay: what a container's start is handed. */
export interface NodeNetwork {
  /** The overlay's bridge (at most 15 characters: see bridgeName). */
  bridge: string;
  /** The node's IPv4 address on `eth0`. */
  address: string;
  /** The subnet's prefix length (24 for a /24). */
  prefix: number;
  /** The node's own hostname; it resolves to `address` inside the node. */
  hostname: string;
}

/** A node attached to its overlay. */
export interface NetNode {
  readonly network: NodeNetwork;
  /** The node's network namespace, as a path `nsenter --net=` takes. */
  readonly netns: string;
  /** The file the node sees as /etc/hosts. */
  readonly hostsFile: string;
}

const NSENTER = '/usr/bin/nsenter';
const UNSHARE = '/usr/bin/unshare';
const IP = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].find((p) => existsSync(p)) ?? 'ip';
const NETNS_DIR = '/run/netns';
const NAME_PREFIX = 'gpu-rental-';

let probed: boolean | undefined;

/**
 * Whether overlays can be real networks here: root, the tools, and a kernel that lets us make a
 * named network namespace with a bridge in it. Asked once; GPU_RENTAL_CONTAINERS=off turns it off
 * with the containers.
 */
export function overlayNetAvailable(): boolean {
  if (probed !== undefined) return probed;
  if (process.env.GPU_RENTAL_CONTAINERS === 'off' || process.getuid?.() !== 0) return (probed = false);
  if (!existsSync(NSENTER) || !existsSync(UNSHARE) || spawnSync(IP, ['-V']).status !== 0) return (probed = false);
  const name = `${NAME_PREFIX}${process.pid}-probe`;
  const ok = ip(['netns', 'add', name], true) && ip(['-n', name, 'link', 'add', 'probe0', 'type', 'bridge'], true);
  ip(['netns', 'del', name], true);
  return (probed = ok);
}

/**
 * The bridge of an overlay: `ov-` and its name, or for a long name its first letters and a hash of
 * the whole (a network interface's name has at most 15 characters).
 */
export function bridgeName(overlayName: string): string {
  const clean = overlayName.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  if (clean.length <= 12) return `ov-${clean}`;
  return `ov-${clean.slice(0, 7)}-${hash32(overlayName).toString(36).padStart(4, '0').slice(-4)}`;
}

/**
 * A node's network from its overlay as the simulator's state has it (`internal_subnet` such as
 * `10.0.0.0/24`, the instance's address in it) and the hostname it gets.
 */
export function nodeNetwork(overlay: { name: string; subnet: string; address: string }, hostname: string): NodeNetwork {
  const prefix = Number(/\/(\d+)$/.exec(overlay.subnet)?.[1]);
  const network = { bridge: bridgeName(overlay.name), address: overlay.address.replace(/\/\d+$/, ''), prefix, hostname };
  checkNetwork(network);
  return network;
}

/** Refuses what could not be a node's network (these words reach `ip` and a hosts file). */
function checkNetwork(n: NodeNetwork): void {
  const octets = n.address.split('.').map(Number);
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(n.address) || octets.some((o) => o > 255)) throw new Error(`not an IPv4 address: ${n.address}`);
  if (!Number.isInteger(n.prefix) || n.prefix < 8 || n.prefix > 30) throw new Error(`not a subnet prefix for a node: ${n.prefix}`);
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(n.hostname)) throw new Error(`not a hostname: ${n.hostname}`);
  if (!/^[a-z0-9][a-z0-9_-]{0,14}$/i.test(n.bridge)) throw new Error(`not a bridge name: ${n.bridge}`);
}

// Inside the node's new mount and UTS namespaces: $1 the hosts file, $2 the hostname, then the
// command. /sys is mounted again so that it lists the node's interfaces (as `ip netns exec` does).
const ENTER = `set -e
mount --bind "$1" /etc/hosts
mount -t sysfs -o nosuid,nodev,noexec gpu-rental-sys /sys
hostname "$2"
shift 2
exec "$@"`;

// The relay a forwarded connection gets inside the node: file descriptor 0 is the connection
// itself, handed over from this machine; it joins it to 127.0.0.1:<argv[1]> in the node, each
// direction ending on its own, and exits when both have (or at once when nothing listens there).
const RELAY = `const net = require('node:net');
const outside = new net.Socket({ fd: 0, readable: true, writable: true, allowHalfOpen: true });
const inside = net.connect({ host: '127.0.0.1', port: Number(process.argv[1]), allowHalfOpen: true });
const quit = () => process.exit(0);
outside.on('error', quit);
inside.on('error', quit);
outside.pipe(inside);
inside.pipe(outside);`;

// A listener inside a node for forwardOut: argv 1 its port, 2 the namespace to reach out to, 3
// the port there, 4 the relay. Each connection goes, as it is, to a relay in that namespace. It ends
// when its standard input does (this process is done with it, or gone).
const LISTENER = `const net = require('node:net');
const { spawn } = require('node:child_process');
const [port, there, outside, relay] = process.argv.slice(1);
const server = net.createServer({ pauseOnConnect: true }, (socket) => {
  spawn('${NSENTER}', ['--net=' + there, '--', process.execPath, '-e', relay, outside], { stdio: [socket, 'ignore', 'ignore'] }).on('error', () => {});
  socket.destroy();
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\\n'));
process.stdin.on('end', () => process.exit(0)).resume();`;

/** Keeps a child in `set` while it runs. */
function track(set: Set<ChildProcess>, child: ChildProcess): void {
  set.add(child);
  child.once('exit', () => set.delete(child));
  child.once('error', () => set.delete(child));
}

let owners = 0;

export class OverlayNet {
  /** Hosts files, one per node. */
  private readonly dir = mkdtempSync(join(tmpdir(), 'gpu-rental-net-'));
  /** The start of every namespace's name this OverlayNet makes. */
  private readonly prefix = `${NAME_PREFIX}${process.pid}-${owners++}`;
  private readonly fabric = `${this.prefix}-fabric`;
  private fabricMade = false;
  private readonly nodes = new Map<string, NetNode & { veth: string }>();
  private readonly forwards = new Map<string, { servers: Server[]; children: Set<ChildProcess> }>();
  private veths = 0;

  constructor() {
    removeAbandonedNetworks();
  }

  /** The names of the namespaces this OverlayNet has now (the fabric's last). */
  namespaces(): string[] {
    return [...[...this.nodes.values()].map((n) => n.netns.slice(NETNS_DIR.length + 1)), ...(this.fabricMade ? [this.fabric] : [])];
  }

  /** The bridges on the fabric now. */
  bridges(): string[] {
    return [...new Set([...this.nodes.values()].map((n) => n.network.bridge))];
  }

  /**
   * Puts a node on its overlay's bridge (made with its first node): its own network namespace,
   * `eth0` with its address, `lo` up, and a hosts file that names it. `key` names the node (the
   * instance id); a node already attached is detached first.
   */
  attach(key: string | number, network: NodeNetwork): NetNode {
    checkNetwork(network);
    const id = String(key);
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(id)) throw new Error(`not a node key: ${id}`);
    this.detach(id);
    if (!this.fabricMade) {
      ip(['netns', 'add', this.fabric]);
      this.fabricMade = true;
    }
    const { bridge } = network;
    if (!this.bridges().includes(bridge)) {
      ip(['-n', this.fabric, 'link', 'add', bridge, 'type', 'bridge']);
      ip(['-n', this.fabric, 'link', 'set', bridge, 'up']);
    }
    const name = `${this.prefix}-${id}`;
    const veth = `n${(this.veths++).toString(36)}`;
    const hostsFile = join(this.dir, `${id}.hosts`);
    const node = { network, netns: join(NETNS_DIR, name), hostsFile, veth };
    this.nodes.set(id, node);
    try {
      ip(['netns', 'add', name]);
      ip(['-n', this.fabric, 'link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name]);
      ip(['-n', this.fabric, 'link', 'set', veth, 'master', bridge, 'up']);
      ip(['-n', name, 'addr', 'add', `${network.address}/${network.prefix}`, 'dev', 'eth0']);
      ip(['-n', name, 'link', 'set', 'eth0', 'up']);
      ip(['-n', name, 'link', 'set', 'lo', 'up']);
      writeFileSync(hostsFile, hostsText(network));
    } catch (error) {
      // Half a node is no node: what was made goes.
      this.detach(id);
      throw error;
    }
    return node;
  }

  /** The node attached under `key`, if any. */
  node(key: string | number): NetNode | undefined {
    return this.nodes.get(String(key));
  }

  /**
   * The command line that runs `argv` as a process of the node: in its network namespace, with
   * its hostname and /etc/hosts. Needs no fork of its own, so the pid of what it starts is `argv`'s.
   */
  command(node: NetNode, argv: readonly string[]): string[] {
    const enter = ['/bin/sh', '-c', ENTER, 'gpu-rental-node', node.hostsFile, node.network.hostname];
    return [NSENTER, `--net=${node.netns}`, '--', UNSHARE, '--mount', '--uts', '--propagation', 'private', '--', ...enter, ...argv];
  }

  /**
   * Listens on this machine's 127.0.0.1:`port` and hands each connection to 127.0.0.1:`inside` in
   * the node (the same port unless told). Resolves once listening; stopped by `unforward` and `detach`.
   */
  async forward(key: string | number, port: number, inside = port): Promise<void> {
    const { node, entry } = this.forwardsOf(key);
    // Paused: not a byte is read here, so the relay gets the connection from its first byte.
    const server = createServer({ pauseOnConnect: true }, (socket: Socket) => {
      const relay = spawn(NSENTER, [`--net=${node.netns}`, '--', process.execPath, '-e', RELAY, String(inside)], {
        stdio: [socket, 'ignore', 'ignore'],
      });
      track(entry.children, relay);
      // The relay holds its own copy of the connection.
      socket.destroy();
    });
    entry.servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  }

  /**
   * The other way: the node's 127.0.0.1:`port` leads to this machine's 127.0.0.1:`outside` (the
   * simulator's API, which a job's stop-at-end and the idle watchdog call from inside). A listener
   * in the node does it; it ends with `unforward`, `detach`, or this process.
   */
  async forwardOut(key: string | number, port: number, outside = port): Promise<void> {
    const { node, entry } = this.forwardsOf(key);
    const here = `/proc/${process.pid}/ns/net`;
    const listener = spawn(
      NSENTER,
      [`--net=${node.netns}`, '--', process.execPath, '-e', LISTENER, String(port), here, String(outside), RELAY],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    track(entry.children, listener);
    await new Promise<void>((resolve, reject) => {
      let said = '';
      listener.stdout.setEncoding('utf8');
      listener.stderr.setEncoding('utf8');
      listener.stdout.on('data', (chunk: string) => chunk.includes('listening') && resolve());
      listener.stderr.on('data', (chunk: string) => (said += chunk));
      listener.once('error', reject);
      listener.once('exit', () => reject(new Error(`the node's listener on port ${port} ended: ${said.trim().split('\n').pop() ?? ''}`)));
    });
  }

  private forwardsOf(key: string | number): { node: NetNode; entry: { servers: Server[]; children: Set<ChildProcess> } } {
    const id = String(key);
    const node = this.nodes.get(id);
    if (!node) throw new Error(`no node ${id} on an overlay`);
    const entry = this.forwards.get(id) ?? { servers: [], children: new Set<ChildProcess>() };
    this.forwards.set(id, entry);
    return { node, entry };
  }

  /** Stops the node's forwards: no new connections, and the relays of open ones end. */
  unforward(key: string | number): void {
    const id = String(key);
    const entry = this.forwards.get(id);
    if (!entry) return;
    this.forwards.delete(id);
    for (const server of entry.servers) server.close();
    for (const child of entry.children) child.kill('SIGKILL');
  }

  /** Takes the node off its overlay: its forwards, veth and namespace go, and the bridge with its last node. */
  detach(key: string | number): void {
    const id = String(key);
    this.unforward(id);
    const node = this.nodes.get(id);
    if (!node) return;
    this.nodes.delete(id);
    // Deleting one end deletes both, at once, even while a process still holds the namespace.
    ip(['-n', this.fabric, 'link', 'del', node.veth], true);
    ip(['netns', 'del', node.netns.slice(NETNS_DIR.length + 1)], true);
    rmSync(node.hostsFile, { force: true });
    if (!this.bridges().includes(node.network.bridge)) ip(['-n', this.fabric, 'link', 'del', node.network.bridge], true);
    if (this.nodes.size === 0 && this.fabricMade) {
      ip(['netns', 'del', this.fabric], true);
      this.fabricMade = false;
    }
  }

  /** Removes every node, bridge and namespace this OverlayNet made. */
  close(): void {
    for (const id of [...this.nodes.keys()]) this.detach(id);
    if (this.fabricMade) ip(['netns', 'del', this.fabric], true);
    this.fabricMade = false;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The node's /etc/hosts: loopback's names, then its own name at its overlay address. */
function hostsText(n: NodeNetwork): string {
  return [
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'ff02::1\tip6-allnodes',
    'ff02::2\tip6-allrouters',
    `${n.address}\t${n.hostname}`,
    '',
  ].join('\n');
}

/** Runs `ip`; throws with its words unless `quiet` (then says whether it worked). */
function ip(args: readonly string[], quiet = false): boolean {
  if (quiet) return spawnSync(IP, args, { stdio: 'ignore' }).status === 0;
  try {
    execFileSync(IP, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    return true;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`ip ${args.join(' ')}: ${stderr || (error as Error).message}`, { cause: error });
  }
}

/** Removes the namespaces of OverlayNets whose process is gone (a killed test run). */
export function removeAbandonedNetworks(): void {
  let names: string[];
  try {
    names = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((m) => m.startsWith(`${NETNS_DIR}/${NAME_PREFIX}`))
      .map((m) => m.slice(NETNS_DIR.length + 1));
  } catch {
    return;
  }
  for (const name of names) {
    const owner = Number(/^gpu-rental-(\d+)-/.exec(name)?.[1]);
    if (owner > 0 && owner !== process.pid && !alive(owner)) ip(['netns', 'del', name], true);
  }
}

/** Whether a process of this machine still runs (a leftover's owner, say). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
