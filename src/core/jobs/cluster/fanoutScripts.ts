/**
 * What Run on Cluster's copy from rank 0 (fanout.ts) runs on the nodes, as text: the look at each
 * node before the upload, the rsync daemon's configuration and the scripts that start and stop it
 * on rank 0, and the pull each other node runs. Pure, so each line can be checked in a test; every
 * value that reaches a shell is checked or quoted here.
 */

import { shellAssignments, shellQuote } from '../../shell';
import DAEMON_START from './remote/daemon-start.sh';
import DAEMON_STOP from './remote/daemon-stop.sh';
import NODE_PROBE from './remote/node-probe.sh';
import { interfaceAddressScript, isIpv4, MIN_MASTER_PORT, MAX_MASTER_PORT, parseInterfaceAddress } from './env';

/** The one module rank 0's daemon serves. */
export const FANOUT_MODULE = 'gpu-rental';

/** The longest the daemon and each pull may live, whatever happens to this window (15 minutes). */
export const FANOUT_HARD_LIMIT_S = 900;

/** How long nothing may move on a pull's connection before rsync gives up (its --timeout, the module's timeout). */
export const FANOUT_IO_TIMEOUT_S = 60;

/** The ports rank 0's daemon tries, in order: above 1000, away from torchrun's 29500, Ray's 6379 and the network check's 29400s. */
export const FANOUT_PORTS: readonly number[] = [28730, 28731, 28732, 28733, 28734];

/** What one node said before the upload. */
export interface NodeProbe {
  /** Its IPv4 address on the overlay (eth0), when it has one. */
  readonly address?: string;
  /** rsync and timeout are on its PATH. */
  readonly rsync: boolean;
  /** The folder ssh starts in (a relative upload folder is under it), when absolute. */
  readonly home?: string;
  /** The ssh user's ids. */
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * The look at a node, one short ssh: its overlay address on the first line (what
 * parseInterfaceAddress reads, so Run on Cluster takes the addresses from it too), then whether it
 * has rsync and timeout, the folder ssh starts in, and the user's ids.
 */
export function nodeProbeScript(): string {
  return interfaceAddressScript() + NODE_PROBE;
}

/** What nodeProbeScript printed; anything unreadable is left out (and the copy from rank 0 is not used where it matters). */
export function parseNodeProbe(output: string): NodeProbe {
  const lines = output.split('\n');
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1);
  const home = field('home');
  const ids = /^(\d{1,10}):(\d{1,10})$/.exec(field('id') ?? '');
  return {
    address: parseInterfaceAddress(output),
    rsync: field('rsync') === 'yes',
    ...(home?.startsWith('/') ? { home } : {}),
    ...(ids ? { uid: Number(ids[1]), gid: Number(ids[2]) } : {}),
  };
}

/**
 * The folder the daemon serves: the upload's folder on rank 0, made absolute against the folder
 * ssh starts in. Undefined when rsyncd.conf could not hold it as it is (a `%`, which rsync reads
 * as a variable, or a trailing backslash, which continues the line).
 */
export function servedPath(remoteDir: string, home: string): string | undefined {
  const path = remoteDir.startsWith('/')
    ? remoteDir
    : remoteDir === '.'
      ? home
      : `${home.replace(/\/+$/, '')}/${remoteDir.replace(/^\.\//, '')}`;
  // eslint-disable-next-line no-control-regex
  if (/[%\u0000-\u001f\u007f]/.test(path) || path.endsWith('\\') || path !== path.trim()) return undefined;
  return path;
}

/**
 * rsyncd.conf for one copy: one read-only module at the uploaded folder, not listed, reachable
 * only from the other nodes' overlay addresses, no chroot (it runs as the ssh user), no DNS look-up
 * (the overlay has none), and a timeout for a peer that stops answering. Run by root, the daemon
 * would read as nobody, who cannot enter /root: it keeps the user's ids.
 */
export function daemonConfig(o: { path: string; allow: readonly string[]; uid?: number; gid?: number }): string | undefined {
  if (o.allow.length === 0 || !o.allow.every(isIpv4)) return undefined;
  const global = { 'use chroot': 'no', 'reverse lookup': 'no' };
  const module = {
    path: o.path,
    'read only': 'yes',
    list: 'no',
    'hosts allow': o.allow.join(' '),
    'hosts deny': '*',
    'munge symlinks': 'no',
    timeout: String(FANOUT_IO_TIMEOUT_S),
    ...(o.uid === 0 ? { uid: '0', gid: String(o.gid ?? 0) } : {}),
  };
  const lines = (settings: Record<string, string>) => Object.entries(settings).map(([name, value]) => `${name} = ${value}`);
  return [
    "# GPU Rental: Run on Cluster's copy from node 0 to the other nodes; removed when the copy ends.",
    ...lines(global),
    `[${FANOUT_MODULE}]`,
    ...lines(module),
    '',
  ].join('\n');
}

/** The daemon's own folder on rank 0 (its configuration, pid and log), from a token of this copy. */
export function daemonFolder(token: string): string | undefined {
  return /^[a-z0-9]{6,32}$/.test(token) ? `/tmp/gpu-rental-fanout-${token}` : undefined;
}

/** A port above 1000 (the service keeps the others for itself). */
function usablePort(port: number): boolean {
  return Number.isInteger(port) && port >= MIN_MASTER_PORT && port <= MAX_MASTER_PORT;
}

/** An IPv4 address as /proc/net/tcp writes it: the four bytes in reverse, in hex. */
function procAddress(address: string): string {
  return address
    .split('.')
    .reverse()
    .map((b) => Number(b).toString(16).toUpperCase().padStart(2, '0'))
    .join('');
}

/**
 * Starts the daemon on rank 0, detached, bound to its overlay address: its configuration comes on
 * stdin into a folder only the user can read; each port is tried until the daemon listens (seen in
 * /proc/net/tcp, or still alive after 5 s). Prints `port=N`; exits non-zero, having removed its
 * folder, when no port worked. `timeout` ends it after FANOUT_HARD_LIMIT_S even if nobody stops it.
 */
export function daemonStartScript(o: { folder: string; address: string; ports?: readonly number[] }): string | undefined {
  const ports = (o.ports ?? FANOUT_PORTS).filter(usablePort);
  if (!isIpv4(o.address) || ports.length === 0) return undefined;
  const values = { d: o.folder, a: o.address, l: procAddress(o.address), h: FANOUT_HARD_LIMIT_S };
  const tries = ports.map((p) => `${p}:${p.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
  return [shellAssignments(values), `set -- ${tries}`, DAEMON_START].join('\n');
}

/** The port daemonStartScript printed, when it is one it was given. */
export function parseDaemonPort(output: string, ports: readonly number[] = FANOUT_PORTS): number | undefined {
  const m = /^port=(\d+)$/m.exec(output);
  const port = m ? Number(m[1]) : NaN;
  return ports.includes(port) ? port : undefined;
}

/**
 * Stops the daemon whose pid its folder holds (only while that process is still the one started
 * with this folder's configuration), its whole process group after 3 s, then removes the folder.
 * Harmless when the daemon never started or already ended.
 */
export function daemonStopScript(folder: string): string {
  return `d=${shellQuote(folder)}\n${DAEMON_STOP}`;
}

/**
 * What a node other than rank 0 runs: the listed files (NUL-separated on stdin) from rank 0's
 * daemon into the same folder, made when missing. Only what is listed is written (no recursion
 * into a listed folder, no deletion), so a file only this node has stays, and a file a job wrote
 * on rank 0 never arrives.
 */
export function pullScript(o: { address: string; port: number; remoteDir: string }): string | undefined {
  if (!isIpv4(o.address) || !usablePort(o.port)) return undefined;
  const dir = shellQuote(o.remoteDir);
  return (
    `mkdir -p -- ${dir} && timeout -k 10 ${FANOUT_HARD_LIMIT_S} rsync -a --from0 --files-from=- --timeout=${FANOUT_IO_TIMEOUT_S} ` +
    `-- rsync://${o.address}:${o.port}/${FANOUT_MODULE}/ ${shellQuote(`${o.remoteDir}/`)}`
  );
}

/**
 * pullScript for a pull started before rank 0's upload ends, so that its ssh is connected when the
 * upload is: it first waits for one line on stdin, the daemon's port (digits only; anything else,
 * or the end of stdin, exits 3 and writes nothing), then pulls the list that follows. Its time
 * limit starts only then. The port reaches the shell as a checked variable, never as text.
 */
export function waitingPullScript(o: { address: string; remoteDir: string }): string | undefined {
  if (!isIpv4(o.address)) return undefined;
  const dir = shellQuote(o.remoteDir);
  return (
    `IFS= read -r p || exit 3; case "$p" in ''|*[!0-9]*) exit 3;; esac; ` +
    `mkdir -p -- ${dir} && timeout -k 10 ${FANOUT_HARD_LIMIT_S} rsync -a --from0 --files-from=- --timeout=${FANOUT_IO_TIMEOUT_S} ` +
    `-- "rsync://${o.address}:$p/${FANOUT_MODULE}/" ${shellQuote(`${o.remoteDir}/`)}`
  );
}

/** What a waiting pull (waitingPullScript) is sent when the upload is done: the port, then the list. */
export function waitingPullInput(port: number, list: string): string | undefined {
  return usablePort(port) ? `${port}\n${list}` : undefined;
}
