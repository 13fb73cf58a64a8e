/**
 * A real OpenSSH sshd per running instance, on 127.0.0.1: one daemon listening on the instance's
 * proxy port (one above `ssh_port` for a Jupyter launch, see proxySshdPort) and, when it has one,
 * its direct port, with its own host key. authorized_keys holds the keys the instance carries (the
 * account's at creation, plus those attached later), rewritten whenever they change; sshd reads it
 * at each login.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstanceState } from './model';
import { proxySshdPort } from './network';

export const SSHD = process.env.GPU_RENTAL_SSHD ?? '/usr/sbin/sshd';

/** Whether a real sshd can run here; when not, the simulator runs without SSH and says so. */
export function sshdAvailable(): boolean {
  return existsSync(SSHD) && existsSync('/usr/bin/ssh-keygen');
}

export class SshdPool {
  private readonly root = mkdtempSync(join(tmpdir(), 'gpu-rental-sshd-'));
  private readonly daemons = new Map<number, ChildProcess>();

  constructor(private readonly log: (line: string) => void = () => {}) {
    // sshd's privilege separation wants this folder; it exists on a machine that runs sshd itself.
    try {
      mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    } catch {
      // not root: sshd then runs without it for the current user
    }
  }

  private dir(id: number): string {
    const dir = join(this.root, String(id));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** Writes the instance's authorized_keys; a running sshd sees the change at the next login. */
  writeKeys(inst: InstanceState): void {
    writeFileSync(join(this.dir(inst.id), 'authorized_keys'), inst.sshKeys.map((k) => k.publicKey).join('\n') + '\n', { mode: 0o600 });
  }

  start(inst: InstanceState): void {
    this.stop(inst.id);
    const dir = this.dir(inst.id);
    const hostKey = join(dir, 'host_ed25519');
    // Its own host key, made once per instance, as a real machine has.
    if (!existsSync(hostKey)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `instance-${inst.id}`, '-f', hostKey]);
    this.writeKeys(inst);
    const ports = [proxySshdPort(inst), inst.endpoint.portMap['22/tcp']].filter((p): p is number => typeof p === 'number');
    const config = [
      ...ports.map((p) => `Port ${p}`),
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'AllowTcpForwarding yes',
      'Subsystem sftp internal-sftp',
      // Probes that read the banner and hang up would otherwise log an error each.
      'LogLevel FATAL',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'sshd_config'), config, { mode: 0o600 });
    const child = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => this.log(`sshd ${inst.id}: ${chunk.toString('utf8').trim()}`));
    child.on('error', (error) => this.log(`sshd ${inst.id} could not start: ${error.message}`));
    child.once('exit', () => {
      if (this.daemons.get(inst.id) === child) this.daemons.delete(inst.id);
    });
    this.daemons.set(inst.id, child);
  }

  stop(id: number): void {
    const child = this.daemons.get(id);
    if (!child) return;
    this.daemons.delete(id);
    child.kill('SIGTERM');
  }

  running(id: number): boolean {
    return this.daemons.has(id);
  }

  async close(): Promise<void> {
    const children = [...this.daemons.values()];
    this.daemons.clear();
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => {
              child.kill('SIGKILL');
              resolve();
            }, 2_000).unref();
          }),
      ),
    );
    rmSync(this.root, { recursive: true, force: true });
  }
}
