import type { Instance } from '../api/instances';

export interface SshEndpoint {
  host: string;
  port: number;
  /** `direct` reaches the machine's public address; `proxy` goes through the service's SSH proxy. */
  via: 'direct' | 'proxy';
}

/**
 * Where to reach an instance over SSH. Like the real CLI, the direct address is preferred when the
 * instance maps port 22; otherwise the service's proxy host and port.
 */
export function sshEndpoint(instance: Pick<Instance, 'public_ipaddr' | 'ports' | 'ssh_host' | 'ssh_port'>): SshEndpoint | undefined {
  const mapped = instance.ports?.['22/tcp']?.[0]?.HostPort;
  if (instance.public_ipaddr && mapped && Number.isInteger(mapped) && mapped > 0) {
    return { host: instance.public_ipaddr.trim(), port: mapped, via: 'direct' };
  }
  if (instance.ssh_host && instance.ssh_port) return { host: instance.ssh_host, port: instance.ssh_port, via: 'proxy' };
  return undefined;
}

/** The command a user pastes into a terminal. */
export function sshCommand(endpoint: SshEndpoint): string {
  return `ssh -p ${endpoint.port} root@${endpoint.host}`;
}
