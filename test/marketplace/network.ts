/**
 * The one place that decides how an instance is reached: `ssh_host`/`ssh_port` (the proxy path;
 * one port above `ssh_port` for a Jupyter launch, see proxySshdPort), `public_ipaddr` and the
 * Docker-style `ports` map (the direct path).
 *
 * With containers (container.ts), each running instance is a container of its own, and with SSH on
 * a real sshd in it listens on these ports (both forms lead to it, so the direct address is
 * 127.0.0.1): `assign` runs when an instance (re)starts booting, `onRunning` when it reaches
 * running, `release` when it stops or fails (and `stopped` when it stops), `destroyed` when it is gone (its store goes too),
 * `keysChanged` when a key is attached or detached, and `close` when the simulator stops.
 */
import { readFileSync } from 'node:fs';
import type { InstanceState, SshEndpoint } from './model';
import { hash32 } from './random';
import type { Containers } from './container';
import type { SshdPool } from './sshd';

/**
 * The proxy address clients use when no direct port is mapped. Every port the simulator hands out
 * is below 32768, outside Linux's ephemeral range (32768-60999): there a real sshd could find its
 * port taken by some client's outgoing connection, and never start (seen once in CI).
 */
const PROXY_HOST = '127.0.0.1';
const PROXY_PORT_MIN = 10_000;
const PROXY_PORT_SPAN = 11_000;
const DIRECT_PORT_MIN = 21_000;
const DIRECT_PORT_SPAN = 11_000;

export interface AssignRequest {
  instanceId: number;
  /** Counts boots that got a new address (create and each start from stopped). */
  bootCount: number;
  runtype: string;
  /** Extra container ports asked for with `-p HOST:CONTAINER` env flags. */
  extraPorts: string[];
  offer: { public_ipaddr: string; direct_port_count: number; machine_id: number };
}

export class Network {
  /** Told when an instance stops (by its renter, the credit, an outbid or its host): notifications.ts. */
  onStopped: ((instance: InstanceState, at: number, reason: string) => void) | undefined;

  constructor(
    private readonly seed: number,
    /** Runs the containers of running instances; absent: nothing runs, scripts are only logged. */
    readonly containers?: Containers,
    private readonly sshd?: SshdPool,
    private readonly report: (line: string) => void = () => {},
  ) {}

  get sshEnabled(): boolean {
    return this.sshd !== undefined;
  }

  /** A fresh address for a boot; the ssh port changes on every restart, as on the real service. */
  assign(r: AssignRequest): SshEndpoint {
    const h = hash32(`${this.seed}:${r.instanceId}:${r.bootCount}`);
    const sshIdx = String(1 + (h % 9));
    // Two simulators on one machine (same seed, same instance ids) would pick the same ports, and the
    // busy check below cannot see a port the other one has picked but not yet bound. With real sshds
    // the ports are therefore salted with this process, so each simulator lands elsewhere; without
    // them nothing listens and the answers stay the same for a seed.
    const p = this.containers ? hash32(`${this.seed}:${process.pid}:${r.instanceId}:${r.bootCount}`) : h;
    const busy = this.containers ? listeningPorts() : new Set<number>();
    let sshPort = PROXY_PORT_MIN + (p % PROXY_PORT_SPAN);
    for (let tries = 0; tries < 50 && (busy.has(sshPort) || busy.has(sshPort + 1)); tries++) {
      sshPort = PROXY_PORT_MIN + ((sshPort - PROXY_PORT_MIN + 2) % PROXY_PORT_SPAN);
    }
    const portMap: Record<string, number> = {};
    let directPortStart = -1;
    let directPortEnd = -1;
    const direct = /direc/.test(r.runtype);
    if (r.offer.direct_port_count > 0) {
      // Each machine owns a block of public ports; instances get a slice of it per boot.
      const span = Math.min(r.offer.direct_port_count, 20);
      directPortStart = DIRECT_PORT_MIN + ((hash32(`${r.offer.machine_id}`) + (p % 997) * span) % DIRECT_PORT_SPAN);
      const taken = (start: number) => Array.from({ length: span }, (_, i) => start + i).some((port) => busy.has(port));
      for (let tries = 0; tries < 50 && taken(directPortStart); tries++) {
        directPortStart = DIRECT_PORT_MIN + ((directPortStart - DIRECT_PORT_MIN + span) % DIRECT_PORT_SPAN);
      }
      directPortEnd = directPortStart + span - 1;
      const wanted = [...(direct ? ['22/tcp'] : []), ...(/jupyter/.test(r.runtype) && direct ? ['8080/tcp'] : []), ...r.extraPorts];
      wanted.slice(0, span).forEach((port, i) => {
        portMap[port] = directPortStart + i;
      });
    }
    const publicIp = this.sshd ? '127.0.0.1' : r.offer.public_ipaddr;
    return { sshHost: PROXY_HOST, sshIdx, sshPort, publicIp, directPortStart, directPortEnd, portMap };
  }

  /** The instance reached running: its container starts (sshd, start-up script, Jupyter). */
  onRunning(instance: InstanceState): void {
    this.containers
      ?.start(instance)
      .catch((error: unknown) => this.report(`instance ${instance.id}: container did not start: ${String(error)}`));
  }

  /** The instance stopped or failed: its container ends, its store stays. */
  release(instanceId: number): void {
    void this.containers?.stop(instanceId);
  }

  /** The instance stopped (`lifecycle.stop`), for whoever listens (`onStopped`). */
  stopped(instance: InstanceState, at: number, reason: string): void {
    this.onStopped?.(instance, at, reason);
  }

  /** The instance is destroyed: its container ends and its store goes. */
  destroyed(instanceId: number): void {
    this.containers
      ?.destroy(instanceId)
      .catch((error: unknown) => this.report(`instance ${instanceId}: store not removed: ${String(error)}`));
  }

  /** A key was attached or detached: authorized_keys follows. */
  keysChanged(instance: InstanceState): void {
    if (this.containers?.isRunning(instance.id)) this.sshd?.writeKeys(instance);
  }

  async close(): Promise<void> {
    await this.containers?.close();
  }
}

/**
 * The port the proxy path really reaches sshd on. `ssh_port` as reported, except for an instance
 * launched in a Jupyter mode: there SSH is one port above it (what the service's CLI computes in
 * ssh-url). The record still reports `ssh_port`, so a client that forgets the +1 reaches no sshd.
 */
export function proxySshdPort(instance: Pick<InstanceState, 'runtype' | 'endpoint'>): number {
  return /jupyter/.test(instance.runtype) ? instance.endpoint.sshPort + 1 : instance.endpoint.sshPort;
}

/** TCP ports something listens on now on this machine (Linux's /proc/net tables); empty elsewhere. */
function listeningPorts(): Set<number> {
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN.
      if (fields[3] === '0A') ports.add(parseInt(fields[1]?.split(':').pop() ?? '', 16));
    }
  }
  return ports;
}

/** The `ports` field of an instance record: Docker's shape, host ports as strings. */
export function portsField(endpoint: SshEndpoint): Record<string, Array<{ HostIp: string; HostPort: string }>> {
  const ports: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
  for (const [container, host] of Object.entries(endpoint.portMap)) ports[container] = [{ HostIp: '0.0.0.0', HostPort: String(host) }];
  return ports;
}
