/**
 * Each instance is a container of its own while it runs, as on the service: the simulator starts
 * one process tree per running instance whose first process (a small bash init) starts the
 * instance's sshd, its start-up script (`onstart`) and, for a Jupyter launch, a Jupyter server.
 *
 * With root and `unshare` (CI, the dev container), the tree lives in new mount, PID and UTS
 * namespaces: the init is PID 1; /root, /workspace and /tmp are the instance's own (bind mounts
 * of its store), /run is private, /proc shows only the container, and its hostname is `c-<id>`,
 * which its own /etc/hosts (the machine's, plus that name at 127.0.1.1) resolves without DNS.
 * Everything a session starts (`setsid nohup`, a tmux server) is in that PID namespace, so
 * stopping the instance kills the init (by the host pid it reports) and the kernel kills the rest;
 * a simulator that dies without stopping it ends it too, through a pipe the init watches (its
 * lifeline). The store is a tmpfs on the host, `<root>/<id>/fs`, sized to the rented disk (`df`
 * inside shows it; a full disk is real), kept across stop and start, removed at destroy and when
 * the simulator stops.
 *
 * Without them (a laptop, not root) the same init runs as a plain process group: HOME (the
 * script's, the Jupyter server's and, through a ForceCommand wrapper, each SSH session's) is the
 * store's `root` folder, but /root, /workspace and /tmp are the machine's own and a `setsid` job
 * outlives the instance. `containersAvailable()` says which; tests that need isolation check it.
 *
 * The container's variables (CONTAINER_ID, CONTAINER_API_KEY: the instance's own key,
 * VAST_CONTAINERLABEL, PUBLIC_IPADDR, VAST_TCP_PORT_22, the instance's env) are the init's own
 * environment, readable at /proc/1/environ; an SSH session does not inherit them, as on the
 * service. An image whose name contains `minimal` has no rsync and no tmux (see MINIMAL_TOOLS): an
 * overlay with a whiteout for each hides them (an empty non-executable file over each would not:
 * bash's `command -v` still prints a non-executable file when it finds no executable one).
 *
 * An instance in an overlay (started with a `network`) is, with namespaces, a node of a real
 * private network (overlayNet.ts): the container runs in the node's network namespace (`eth0` on
 * the overlay's bridge) with its own hostname and /etc/hosts. Its sshd and Jupyter server listen
 * on the node's 127.0.0.1 as they would on this machine's, and the same ports on this machine's
 * 127.0.0.1 lead there, so they are reached as today; the ports of `loopbackPorts` (the simulator's
 * API) lead the other way. The node leaves its overlay when the container ends. Without namespaces
 * the network is ignored: the nodes share this machine's loopback.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type { InstanceState } from './model';
import { writeFakeSmi, type SmiHardware } from './nvidiaSmi';
import { alive, OverlayNet, overlayNetAvailable, type NetNode, type NodeNetwork } from './overlayNet';
import type { SshdPlacement, SshdPool } from './sshd';

/** The Jupyter server the simulator runs for a Jupyter launch (Debian's jupyter-server). */
export const JUPYTER_SERVER = process.env.GPU_RENTAL_JUPYTER_SERVER ?? '/usr/bin/jupyter-server';

/** Tools an image whose name contains `minimal` lacks, as a bare image would. */
export const MINIMAL_TOOLS = ['rsync', 'tmux'] as const;

/** The PATH of container processes: the extra folders, then the usual system folders. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where the init mounts the instance's sshd folder (under the container's private /run). */
const SSHD_INSIDE = '/run/gpu-rental/sshd';

let probed: boolean | undefined;

/**
 * Whether instances can be real containers here: root, `unshare` and `mount`, and the kernel lets
 * us make mount, PID and UTS namespaces (a locked-down container may not). Asked once.
 */
export function containersAvailable(): boolean {
  if (probed !== undefined) return probed;
  if (process.env.GPU_RENTAL_CONTAINERS === 'off' || process.getuid?.() !== 0) return (probed = false);
  if (!existsSync('/usr/bin/unshare') || !existsSync('/usr/bin/mount')) return (probed = false);
  const trial = spawnSync('/usr/bin/unshare', ['--mount', '--pid', '--uts', '--fork', '--propagation', 'private', 'true'], {
    timeout: 5_000,
  });
  return (probed = trial.status === 0);
}

/** Whether an instance of this image lacks the tools in MINIMAL_TOOLS. */
export function isMinimalImage(image: string): boolean {
  return /minimal/i.test(image);
}

// PID 1 of a container. Positional arguments (kept out of the environment, which is the
// container's): 1 store, 2 isolate (1|0), 3 sshd folder on the host ('' for none), 4 sshd command
// line, 5 start-up script ('' for none), 6 extra PATH folders (':'-separated), 7 minimal (1|0),
// 8 Jupyter port ('' for none), 9 token, 10 Jupyter folder, 11 hostname (isolated only; '' keeps
// the one it has: an overlay node's, set with its own /etc/hosts by overlayNet.ts). File
// descriptors: 1 notices for the simulator (its host pid first, then 'ready'), 2 sshd's errors, 3 and 4 the script's stdout and
// stderr, 5 the Jupyter server's log, 6 the lifeline: the simulator never writes to it, and the
// init ends when end-of-file is read there (the simulator closed it or died).
const INIT = String.raw`
store=$1 isolate=$2 sshd_dir=$3 sshd_cmd=$4 script=$5 extra=$6 minimal=$7 jport=$8 jtoken=$9 jdir=${'$'}{10} host=${'$'}{11}
# The host's /proc is still mounted: its first field is this process's pid on the host, which the
# simulator kills at stop even when unshare, our parent, has gone.
read -r hostpid _ < /proc/self/stat
echo "pid $hostpid"
if [ "$isolate" = 1 ]; then
  set -e
  mount -t proc -o nosuid,nodev,noexec proc /proc
  # Its own hostname, in its own UTS namespace (no hostname binary needed).
  if [ -n "$host" ]; then printf '%s' "$host" > /proc/sys/kernel/hostname; fi
  mount --bind "$store/root" /root
  mount --bind "$store/workspace" /workspace
  mount -t tmpfs -o mode=0755,size=16m gpu-rental-run /run
  mkdir -p /run/sshd /run/gpu-rental/sshd
  # Its name resolves from its own /etc/hosts (the machine's, plus its name), never through DNS.
  if [ -n "$host" ] && [ -e /etc/hosts ]; then
    { cat /etc/hosts; [ -z "$(tail -c 1 /etc/hosts)" ] || echo; printf '127.0.1.1\t%s\n' "$host"; } > /run/gpu-rental/hosts
    mount --bind /run/gpu-rental/hosts /etc/hosts
  fi
  if [ -n "$sshd_dir" ]; then mount --bind "$sshd_dir" /run/gpu-rental/sshd; fi
  # Extra PATH folders under /tmp or /run would vanish under the private ones: keep them aside, then put them back.
  i=0
  IFS=:
  for d in $extra; do
    case $d in /tmp/*|/run/*) mkdir -p "/run/gpu-rental/path/$i"; mount --bind "$d" "/run/gpu-rental/path/$i" ;; esac
    i=$((i + 1))
  done
  mount --bind "$store/tmp" /tmp
  i=0
  for d in $extra; do
    case $d in /tmp/*|/run/*) mkdir -p "$d"; mount --bind "/run/gpu-rental/path/$i" "$d" ;; esac
    i=$((i + 1))
  done
  unset IFS
  if [ "$minimal" = 1 ]; then
    # Hide the tools as absent files: an overlay whose top layer holds a whiteout for each.
    declare -A hidden=()
    for tool in ${MINIMAL_TOOLS.join(' ')}; do
      for p in $(type -ap "$tool"); do
        d=$(cd "$(dirname "$p")" && pwd -P)
        mkdir -p "/run/gpu-rental/absent$d"
        [ -e "/run/gpu-rental/absent$d/$tool" ] || mknod "/run/gpu-rental/absent$d/$tool" c 0 0
        hidden[$d]=1
      done
    done
    for d in "${'$'}{!hidden[@]}"; do mount -t overlay gpu-rental-minimal -o "lowerdir=/run/gpu-rental/absent$d:$d" "$d"; done
  fi
  set +e
fi
cd "$HOME" || cd /
exec </dev/null
if [ -n "$sshd_dir" ]; then eval "$sshd_cmd" 1>/dev/null 3>&- 4>&- 5>&- 6<&- & fi
if [ -n "$script" ]; then
  (bash -c "$script" 1>&3 2>&4 3>&- 4>&- 5>&-; echo "onstart-exit $?") 6<&- &
fi
if [ -n "$jport" ]; then
  (cd "$jdir" 2>/dev/null || cd /; exec ${quote(JUPYTER_SERVER)} --ServerApp.token="$jtoken" --ServerApp.port="$jport" --ServerApp.port_retries=0 \
    --ServerApp.ip=127.0.0.1 --no-browser --allow-root --ServerApp.root_dir="$jdir") 1>&5 2>&5 3>&- 4>&- 5>&- 6<&- &
fi
exec 3>&- 4>&- 5>&-
echo ready
# A child watches the lifeline: it ends at end-of-file, when the simulator is done with this
# container or gone. PID 1 waits for it, and reaps what is orphaned inside meanwhile (a blocking
# read in the init itself would leave them zombies, which still answer kill -0). With namespaces
# the kernel kills the rest when the init exits.
read -r -u 6 _ &
watcher=$!
exec 6<&-
wait "$watcher"
[ "$isolate" = 1 ] || kill -TERM 0
exit 0
`;

/** One word for bash, single-quoted. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface ContainerOptions {
  /** The instance's own API key (what CONTAINER_API_KEY holds). */
  keyOf: (inst: InstanceState) => string | undefined;
  /** Appends a line to the instance's log. */
  log: (inst: InstanceState, line: string) => void;
  /** Messages for whoever runs the simulator (sshd's errors). */
  report?: (line: string) => void;
  /** Folders put before PATH (a fake nvidia-smi, say). */
  path?: string[];
  /**
   * What the instance's own `nvidia-smi` reports (nvidiaSmi.ts), put on its PATH after `path` and on
   * its SSH sessions' PATH; undefined: none.
   */
  gpuOf?: (inst: InstanceState) => SmiHardware | undefined;
  /** Runs each instance's sshd. */
  sshd?: SshdPool;
  /** Runs start-up scripts. */
  onstart: boolean;
  /** The Jupyter folder of an instance (its template's `jupyter_dir`); default /workspace. */
  jupyterDirOf?: (inst: InstanceState) => string | null | undefined;
  /** Real namespaces; default containersAvailable(). */
  isolate?: boolean;
  /** Where an instance sits on its overlay, if it is in one (a start's own `network` wins). */
  networkOf?: (inst: InstanceState) => NodeNetwork | undefined;
  /** Ports of this machine's 127.0.0.1 that a node on an overlay reaches at its own (the simulator's API). */
  loopbackPorts?: () => readonly number[];
}

/** The init's lifeline: its file descriptor 6, a pipe the simulator holds open while the container runs. */
const LIFELINE = 6;

/**
 * How long a stop waits for the killed container's process and pipes: far more than a SIGKILL
 * takes, but bounded, so a process we failed to kill never hangs a stop or the simulator's close.
 */
const END_WAIT_MS = 5_000;

/** Without namespaces: how long the init's process group has between SIGTERM and SIGKILL. */
const TERM_GRACE_MS = 2_000;

interface Running {
  child: ChildProcess;
  /** The init's pid on this machine, once it has said it. */
  initPid?: number;
  /** Set when the container is being ended: a pid said after that is killed at once. */
  ending: boolean;
  /** Resolves when the child (unshare, or the init itself without namespaces) has exited. */
  exited: Promise<void>;
  /** Resolves when every process that held the child's pipes has gone (or the pipes were destroyed). */
  closed: Promise<void>;
  /** Resolves when the init has started what the instance runs (or has gone). */
  ready: Promise<void>;
  jupyterPort?: number;
}

export class Containers {
  /** Stores, sshd folders and logs, one folder per instance. */
  readonly root = mkdtempSync(join(tmpdir(), 'gpu-rental-sim-'));
  /**
   * Each instance's HOME seen from the host (a link to its store's `root`), in the folder the
   * start-up scripts used before containers, where host-side tools and tests look for what a
   * script wrote to ~.
   */
  private readonly homes = mkdtempSync(join(tmpdir(), 'gpu-rental-onstart-'));
  readonly isolated: boolean;
  private readonly running = new Map<number, Running>();
  private readonly mounted = new Set<number>();
  /** Bumped by every start and stop: a start that awaited something gives up when it is stale. */
  private readonly generation = new Map<number, number>();
  private closed = false;
  /** The overlays' networks, made with the first node. */
  private overlay?: OverlayNet;
  private saidShared = false;

  constructor(private readonly options: ContainerOptions) {
    this.isolated = options.isolate ?? containersAvailable();
    writeFileSync(join(this.root, 'owner.pid'), String(process.pid));
    if (this.isolated) {
      // The mount point of every container's /workspace; empty on the host.
      mkdirSync('/workspace', { recursive: true });
      removeAbandonedStores();
    }
  }

  /** The folder of the instance's nvidia-smi on the host (and, mounted back, in its container). */
  gpuFolder(id: number): string {
    return join(this.root, String(id), 'gpu');
  }

  /** Writes what the instance's nvidia-smi answers; false when it has none. A running container reads it at its next call. */
  refreshGpu(inst: InstanceState): boolean {
    const hw = this.options.gpuOf?.(inst);
    if (!hw) return false;
    writeFakeSmi(this.gpuFolder(inst.id), hw);
    return true;
  }

  /** The instance's store on the host: `root/`, `workspace/`, `tmp/`. */
  store(id: number): string {
    return join(this.root, String(id), 'fs');
  }

  /**
   * The host path of a path inside the instance's container: /root, /workspace and /tmp are its
   * store's; any other path is the machine's own (a container shares the rest of the file system).
   */
  hostPath(id: number, containerPath: string): string {
    const p = posix.normalize(containerPath);
    for (const top of ['root', 'workspace', 'tmp']) {
      if (p === `/${top}` || p.startsWith(`/${top}/`)) return join(this.store(id), top, p.slice(top.length + 1));
    }
    return p;
  }

  /** The folder an instance's HOME is on the host (what `~` is in its script and sessions). */
  home(id: number): string {
    return join(this.store(id), 'root');
  }

  isRunning(id: number): boolean {
    return this.running.has(id);
  }

  /** Resolves once the instance's container has started its processes; at once when none runs. */
  async whenReady(id: number): Promise<void> {
    await this.running.get(id)?.ready;
  }

  /** The host port of the instance's Jupyter server while it runs. */
  jupyterPort(id: number): number | undefined {
    return this.running.get(id)?.jupyterPort;
  }

  /** Makes the store once per instance: a tmpfs of the disk's size when isolated, a folder otherwise. */
  private ensureStore(inst: InstanceState): string {
    const fs = this.store(inst.id);
    if (this.mounted.has(inst.id) || (!this.isolated && existsSync(fs))) return fs;
    mkdirSync(fs, { recursive: true, mode: 0o755 });
    if (this.isolated) {
      const bytes = Math.max(1, Math.round(inst.diskGb * 1024 ** 3));
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, `gpu-rental-${inst.id}`, fs]);
      this.mounted.add(inst.id);
    }
    mkdirSync(join(fs, 'root'), { mode: 0o700 });
    mkdirSync(join(fs, 'workspace'), { mode: 0o755 });
    mkdirSync(join(fs, 'tmp'));
    chmodSync(join(fs, 'tmp'), 0o1777);
    try {
      symlinkSync(join(fs, 'root'), join(this.homes, String(inst.id)));
    } catch {
      // already linked
    }
    return fs;
  }

  /** Resizes the store (a full disk for tests). Only while the store exists, and only with a tmpfs. */
  setDiskBytes(id: number, bytes: number): void {
    if (!this.mounted.has(id)) throw new Error(`instance ${id} has no container disk (it never ran, or containers are off here)`);
    execFileSync('mount', ['-o', `remount,size=${Math.max(4096, Math.round(bytes))}`, this.store(id)]);
  }

  /**
   * Starts the container of an instance that reached running; with a `network`, as a node of its
   * overlay (see the top of this file).
   */
  async start(inst: InstanceState, network: NodeNetwork | undefined = this.options.networkOf?.(inst)): Promise<void> {
    const generation = this.bump(inst.id);
    await this.end(inst.id);
    const jupyter = /jupyter/.test(inst.runtype) && existsSync(JUPYTER_SERVER);
    const port = jupyter ? (inst.endpoint.portMap['8080/tcp'] ?? (await freePort())) : undefined;
    if (this.closed || this.generation.get(inst.id) !== generation) return;
    const fs = this.ensureStore(inst);
    const sshd = this.options.sshd;
    const placement: SshdPlacement = this.isolated ? { inside: SSHD_INSIDE } : { inside: '', sessionHome: join(fs, 'root') };
    const gpu = this.refreshGpu(inst) ? [this.gpuFolder(inst.id)] : [];
    if (gpu.length > 0) placement.path = [...gpu, SYSTEM_PATH].join(':');
    let sshdDir = '';
    let sshdCmd = '';
    if (sshd) {
      sshdDir = sshd.dir(inst.id);
      if (!this.isolated) placement.inside = sshdDir;
      sshd.prepare(inst, placement);
      sshdCmd = sshd.argv(placement).map(quote).join(' ');
    }
    const script = this.options.onstart ? (inst.onstart?.trim() ? inst.onstart : '') : '';
    if (!sshd && !script && port === undefined) return;
    const extra = [...(this.options.path ?? []), ...gpu];
    const home = this.isolated ? '/root' : join(fs, 'root');
    const userEnv = Object.fromEntries(inst.env.filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)));
    const env: NodeJS.ProcessEnv = {
      ...userEnv,
      PATH: [...extra, SYSTEM_PATH].join(':'),
      HOME: home,
      LANG: 'C.UTF-8',
      CONTAINER_ID: String(inst.id),
      CONTAINER_API_KEY: this.options.keyOf(inst) ?? '',
      VAST_CONTAINERLABEL: `C.${inst.id}`,
      PUBLIC_IPADDR: inst.endpoint.publicIp,
      ...(inst.endpoint.portMap['22/tcp'] ? { VAST_TCP_PORT_22: String(inst.endpoint.portMap['22/tcp']) } : {}),
    };
    const jdir = this.options.jupyterDirOf?.(inst) || '/workspace';
    const node = network ? await this.joinOverlay(inst, network) : undefined;
    if (this.closed || this.generation.get(inst.id) !== generation) {
      if (node && this.overlay?.node(inst.id) === node) this.overlay.detach(inst.id);
      return;
    }
    const args = [
      '-c',
      INIT,
      'gpu-rental-init',
      fs,
      this.isolated ? '1' : '0',
      sshdDir,
      sshdCmd,
      script,
      extra.join(':'),
      isMinimalImage(inst.image) ? '1' : '0',
      port === undefined ? '' : String(port),
      inst.jupyterToken,
      this.isolated ? jdir : this.hostPath(inst.id, jdir),
      // Its own hostname; a node has its own already (overlayNet.ts), which its UTS namespace keeps.
      this.isolated && !node ? `c-${inst.id}` : '',
    ];
    const jupyterLog = openSync(join(this.root, String(inst.id), 'jupyter.log'), 'a');
    const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', jupyterLog, 'pipe'];
    // No --kill-child (nor setpriv --pdeathsig): the parent-death signal is set in unshare's child
    // after its fork, so an unshare killed in between left an init running with nobody to kill it.
    // The lifeline has no such window (the pipe exists before the fork): when this process closes
    // it, or dies (a killed test run), the init ends, and the kernel ends its namespace. The init
    // mounts its own /proc, after reading its host pid from ours.
    // A node's wrapper forks nothing: the child is still unshare, whose child is the init.
    const unshare = ['/usr/bin/unshare', '--mount', '--pid', '--uts', '--fork', '--propagation', 'private', '/bin/bash', ...args];
    const [command = '', ...rest] = node && this.overlay ? this.overlay.command(node, unshare) : unshare;
    const child = this.isolated
      ? spawn(command, rest, { env, stdio, cwd: '/' })
      : spawn('/bin/bash', args, { env, stdio, cwd: '/', detached: true });
    closeSync(jupyterLog);
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    let isReady = () => {};
    let started = false;
    const ready = Promise.race([new Promise<void>((resolve) => (isReady = resolve)), closed]);
    const run: Running = { child, ending: false, exited, closed, ready, jupyterPort: port };
    this.running.set(inst.id, run);
    const lines = (stream: NodeJS.ReadableStream | null | undefined, each: (line: string) => void) => {
      let rest = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const all = (rest + chunk).split('\n');
        rest = all.pop() ?? '';
        for (const line of all) each(line);
      });
    };
    const [, out, err, scriptOut, scriptErr] = child.stdio as Array<NodeJS.ReadableStream | null>;
    lines(out, (line) => {
      const pid = /^pid (\d+)$/.exec(line);
      if (pid) {
        run.initPid = Number(pid[1]);
        // Ended before the init could say who it is (it would also end at its lifeline's close).
        if (run.ending) this.killInit(run, fs);
      }
      if (line === 'ready') {
        started = true;
        if (!node) isReady();
        // A node's ports are reached through this machine's loopback once the init has started them.
        else
          this.forwardPorts(inst, port)
            .catch((error: unknown) => this.options.report?.(`instance ${inst.id}: its ports are not reachable: ${String(error)}`))
            .finally(isReady);
      }
      const exit = /^onstart-exit (\d+)$/.exec(line);
      if (exit) this.options.log(inst, `onstart: exited with code ${exit[1]}`);
    });
    lines(err, (line) => this.options.report?.(`instance ${inst.id}: ${line}`));
    lines(scriptOut, (line) => this.options.log(inst, `onstart stdout: ${line.slice(0, 500)}`));
    lines(scriptErr, (line) => this.options.log(inst, `onstart stderr: ${line.slice(0, 500)}`));
    child.on('error', (error) => this.options.log(inst, `container: could not start: ${error.message}`));
    child.once('exit', (code) => {
      // A mount that failed, say: the init's own words went to the report.
      if (!started && code !== null) this.options.log(inst, `container: its init exited with code ${code} before it was ready`);
    });
    child.once('close', () => {
      if (this.running.get(inst.id)?.child === child) this.running.delete(inst.id);
    });
  }

  /**
   * Ends the container: with namespaces, the init (by the host pid it said) and `unshare` get
   * SIGKILL, and the kernel kills everything else in the init's PID namespace; without, the init's
   * process group gets SIGTERM, then SIGKILL. Either way the lifeline closes, which ends an init
   * that has not said its pid yet. Resolves when the init has gone, or after END_WAIT_MS.
   */
  stop(id: number): Promise<void> {
    this.bump(id);
    return this.end(id);
  }

  private bump(id: number): number {
    const next = (this.generation.get(id) ?? 0) + 1;
    this.generation.set(id, next);
    return next;
  }

  private async end(id: number): Promise<void> {
    const run = this.running.get(id);
    if (!run) return;
    this.running.delete(id);
    run.ending = true;
    // At once, not after the wait: a start that follows must find the node's names free.
    this.overlay?.detach(id);
    const { child } = run;
    (child.stdio as unknown as Array<Socket | null>)[LIFELINE]?.destroy();
    if (child.pid === undefined) return;
    if (this.isolated) {
      // SIGKILL at once: the init of a PID namespace ignores a SIGTERM it has no handler for, and
      // its exit kills everything else in the namespace anyway.
      this.killInit(run, this.store(id));
      signal(child.pid, 'SIGKILL');
    } else if (signal(-child.pid, 'SIGTERM')) {
      const group = -child.pid;
      setTimeout(() => signal(group, 'SIGKILL'), TERM_GRACE_MS).unref();
    }
    let timer: NodeJS.Timeout | undefined;
    const gone = await Promise.race([
      Promise.all([run.exited, run.closed]).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), END_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!gone) {
      // A process of the container we could not kill (a setsid'd sshd session without namespaces,
      // say) still holds a pipe: stop reading, so the stop and the simulator's close go on.
      for (const stream of child.stdio) stream?.destroy();
      this.options.report?.(`instance ${id}: its container had not gone ${END_WAIT_MS / 1000} s after it was ended; its pipes are closed`);
    }
  }

  /**
   * Puts the instance on its overlay's network, with the simulator's API on its loopback; undefined
   * where there are no namespaces (the nodes then share this machine's loopback, said once).
   */
  private async joinOverlay(inst: InstanceState, network: NodeNetwork): Promise<NetNode | undefined> {
    if (!this.isolated || !overlayNetAvailable()) {
      if (!this.saidShared)
        this.options.report?.('overlays: no network namespaces here (root is needed), so nodes share loopback and have no eth0');
      this.saidShared = true;
      return undefined;
    }
    this.overlay ??= new OverlayNet();
    const node = this.overlay.attach(inst.id, network);
    try {
      for (const port of this.options.loopbackPorts?.() ?? []) await this.overlay.forwardOut(inst.id, port);
    } catch (error) {
      this.options.report?.(`instance ${inst.id}: this machine's ports are not reachable from its node: ${String(error)}`);
    }
    return node;
  }

  /** This machine's 127.0.0.1 leads to the node's sshd ports and Jupyter port. */
  private async forwardPorts(inst: InstanceState, jupyterPort: number | undefined): Promise<void> {
    const ports = [...(this.options.sshd?.ports(inst) ?? []), ...(jupyterPort === undefined ? [] : [jupyterPort])];
    for (const port of ports) if (this.running.has(inst.id)) await this.overlay?.forward(inst.id, port);
  }

  /** SIGKILL to the init by its host pid, if it said one and that pid is still this container's init. */
  private killInit(run: Running, store: string): void {
    const pid = run.initPid;
    if (pid === undefined) return;
    try {
      // The pid could be another process's by now, were the init long gone: check its arguments
      // (unshare's hold them too, after its own).
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0] !== '/bin/bash' || argv[3] !== 'gpu-rental-init' || argv[4] !== store) return;
    } catch {
      return;
    }
    signal(pid, 'SIGKILL');
  }

  /** The instance is gone: its container stops and its store goes. */
  async destroy(id: number): Promise<void> {
    await this.stop(id);
    this.options.sshd?.forget(id);
    try {
      unlinkSync(join(this.homes, String(id)));
    } catch {
      // never linked
    }
    this.removeStore(id);
  }

  private removeStore(id: number): void {
    if (this.mounted.delete(id)) {
      // Lazy: a process of the dying container may still hold it for a moment.
      spawnSync('umount', ['-l', this.store(id)]);
    }
    rmSync(join(this.root, String(id)), { recursive: true, force: true });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running.keys()].map((id) => this.stop(id)));
    for (const id of [...this.mounted]) this.removeStore(id);
    this.overlay?.close();
    rmSync(this.root, { recursive: true, force: true });
    rmSync(this.homes, { recursive: true, force: true });
    this.options.sshd?.close();
  }
}

/**
 * Unmounts and removes the stores of simulators that died without closing (a killed test run):
 * their folder's owner.pid names a process that is gone.
 */
function removeAbandonedStores(): void {
  const mounts = (() => {
    try {
      return readFileSync('/proc/self/mounts', 'utf8')
        .split('\n')
        .map((line) => line.split(' ')[1] ?? '');
    } catch {
      return [];
    }
  })();
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith('gpu-rental-sim-')) continue;
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue;
    }
    if (!(owner > 0) || alive(owner)) continue;
    for (const target of mounts.filter((m) => m.startsWith(`${dir}/`))) spawnSync('umount', ['-l', target]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sends a signal; false when no such process (or group) exists. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** A port nobody listens on now (the Jupyter server of an instance without a mapped 8080). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
