/**
 * The one place that decides how an instance is reached: `ssh_host`/`ssh_port` (the proxy path),
 * `public_ipaddr` and the Docker-style `ports` map (the direct path).
 *
 * Today nothing listens on these ports. A later change can start a real sshd per running instance
 * here: `assign` runs when an instance (re)starts booting, `onRunning` when it reaches running,
 * `release` when it stops or is destroyed, and `close` when the simulator stops.
 */
import type { InstanceState, SshEndpoint } from './model';
import { hash32 } from './random';

/** The proxy address clients use when no direct port is mapped. */
const PROXY_HOST = '127.0.0.1';
const PROXY_PORT_MIN = 20_000;
const PROXY_PORT_SPAN = 30_000;

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
  constructor(private readonly seed: number) {}

  /** A fresh address for a boot; the ssh port changes on every restart, as on the real service. */
  assign(r: AssignRequest): SshEndpoint {
    const h = hash32(`${this.seed}:${r.instanceId}:${r.bootCount}`);
    const sshIdx = String(1 + (h % 9));
    const sshPort = PROXY_PORT_MIN + (h % PROXY_PORT_SPAN);
    const portMap: Record<string, number> = {};
    let directPortStart = -1;
    let directPortEnd = -1;
    const direct = /direc/.test(r.runtype);
    if (r.offer.direct_port_count > 0) {
      // Each machine owns a block of public ports; instances get a slice of it per boot.
      const span = Math.min(r.offer.direct_port_count, 20);
      directPortStart = 40_000 + ((hash32(`${r.offer.machine_id}`) + (h % 997) * span) % 20_000);
      directPortEnd = directPortStart + span - 1;
      const wanted = [...(direct ? ['22/tcp'] : []), ...(/jupyter/.test(r.runtype) && direct ? ['8080/tcp'] : []), ...r.extraPorts];
      wanted.slice(0, span).forEach((port, i) => {
        portMap[port] = directPortStart + i;
      });
    }
    return { sshHost: PROXY_HOST, sshIdx, sshPort, publicIp: r.offer.public_ipaddr, directPortStart, directPortEnd, portMap };
  }

  /** The instance reached running. Nothing to do while no sshd is started. */
  onRunning(_instance: InstanceState): void {}

  /** The instance stopped, failed or is gone. */
  release(_instanceId: number): void {}

  async close(): Promise<void> {}
}

/** The `ports` field of an instance record: Docker's shape, host ports as strings. */
export function portsField(endpoint: SshEndpoint): Record<string, Array<{ HostIp: string; HostPort: string }>> {
  const ports: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
  for (const [container, host] of Object.entries(endpoint.portMap)) ports[container] = [{ HostIp: '0.0.0.0', HostPort: String(host) }];
  return ports;
}
