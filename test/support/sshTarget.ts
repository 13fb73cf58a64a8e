import type { GpuRentalClient } from '../../src/core/api/client';
import { sshEndpoint, type SshEndpoint } from '../../src/core/instances/ssh';
import { waitForSshBanner } from '../../src/core/ssh/probe';
import type { SshTarget } from '../../src/core/ssh/remote';
import { instanceIn } from './client';

/**
 * ssh options for a test's own key against a simulator's sshd: only that key, no known_hosts (each
 * simulator's host keys are new), quiet.
 */
export function testSshOptions(keyPath: string): string[] {
  return [
    '-i',
    keyPath,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
  ];
}

/**
 * Waits until instance `id` runs and its sshd answers, and says how ssh reaches it with the key
 * at `keyPath` (registered on the account before the rent), as `runRemote` and port forwards take it.
 */
export async function reachableInstance(
  client: GpuRentalClient,
  id: number,
  keyPath: string,
): Promise<SshTarget & { endpoint: SshEndpoint; jupyterToken: string | null | undefined }> {
  const running = await instanceIn(client, id, 'running', 15_000);
  const endpoint = sshEndpoint(running)!;
  await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
  return {
    instanceId: id,
    alias: `root@${endpoint.host}`,
    args: [...testSshOptions(keyPath), '-p', String(endpoint.port)],
    endpoint,
    jupyterToken: running.jupyter_token,
  };
}
