import { readdirSync, readFileSync } from 'node:fs';
import type { Marketplace } from '../marketplace/server';

/**
 * Where a path inside an instance's container is on this machine, so a test can put a file in an
 * instance or check one it wrote: `containerPath(sim, id, '/workspace/x')`. /root, /workspace and
 * /tmp are the instance's own store (kept across stop and start, gone at destroy); other paths are
 * the machine's. Needs a simulator started with `ssh` or `onstart`.
 */
export function containerPath(sim: Marketplace, instanceId: number, path: string): string {
  return sim.control.containerPath(instanceId, path);
}

/** Whether the simulator's instances are isolated containers (root and unshare), with the reason when not. */
export function containersIsolated(sim: Marketplace): { isolated: true } | { isolated: false; reason: string } {
  if (sim.control.containersIsolated()) return { isolated: true };
  return {
    isolated: false,
    reason:
      process.getuid?.() === 0
        ? 'unshare cannot make mount, PID and UTS namespaces here'
        : 'instances are containers only when the tests run as root',
  };
}

/**
 * How many processes on this machine have `token` as a word of their command line: a test starts
 * `sleep <token>` in an instance and sees here when stop or destroy ends it (a container's processes
 * are this machine's processes, in namespaces of their own).
 */
export function processesWith(token: string): number {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(token);
      } catch {
        return false;
      }
    }).length;
}
