/**
 * The sshd of each running instance: OpenSSH on 127.0.0.1, listening on the instance's proxy port
 * (one above `ssh_port` for a Jupyter launch, see proxySshdPort) and, when it has one, its direct
 * port, with its own host key. authorized_keys holds the keys the instance carries (the account's
 * at creation, plus those attached later), rewritten whenever they change; sshd reads it at each
 * login. This module keeps each instance's sshd folder and writes its configuration; the
 * instance's container (container.ts) runs the daemon inside.
 */
import { execFileSync } from 'node:child_process';
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

/** Where the container sees an instance's sshd folder, and what its sessions get. */
export interface SshdPlacement {
  /** The folder as the daemon sees it: a private mount in a container, else the host folder. */
  inside: string;
  /**
   * Without a container: the folder sessions get as HOME (a ForceCommand wrapper sets it, since
   * sshd takes HOME from the password file and SetEnv may not change it).
   */
  sessionHome?: string;
  /** The sessions' PATH (sshd's own default when absent): the instance's nvidia-smi is on it. */
  path?: string;
}

export class SshdPool {
  private readonly root = mkdtempSync(join(tmpdir(), 'gpu-rental-sshd-'));

  constructor() {
    // sshd's privilege separation wants this folder; it exists on a machine that runs sshd itself.
    try {
      mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    } catch {
      // not root: sshd then runs without it for the current user
    }
  }

  /** The instance's sshd folder on the host: host key, authorized_keys, sshd_config. */
  dir(id: number): string {
    const dir = join(this.root, String(id));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** Writes the instance's authorized_keys; a running sshd sees the change at the next login. */
  writeKeys(inst: InstanceState): void {
    writeFileSync(join(this.dir(inst.id), 'authorized_keys'), inst.sshKeys.map((k) => k.publicKey).join('\n') + '\n', { mode: 0o600 });
  }

  /** Makes the host key (once per instance, as a real machine has one), authorized_keys and the configuration. */
  prepare(inst: InstanceState, placement: SshdPlacement): void {
    const dir = this.dir(inst.id);
    const hostKey = join(dir, 'host_ed25519');
    if (!existsSync(hostKey)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `instance-${inst.id}`, '-f', hostKey]);
    this.writeKeys(inst);
    const inside = placement.inside;
    const ports = this.ports(inst);
    const wrapper = join(dir, 'session.sh');
    if (placement.sessionHome) {
      // ForceCommand runs this for every session, sftp included (it comes as its command line).
      writeFileSync(
        wrapper,
        [
          '#!/bin/sh',
          `HOME='${placement.sessionHome.replace(/'/g, `'\\''`)}'`,
          'export HOME',
          'cd "$HOME" || exit 1',
          'if [ -n "${SSH_ORIGINAL_COMMAND:-}" ]; then exec "${SHELL:-/bin/sh}" -c "$SSH_ORIGINAL_COMMAND"; fi',
          'exec "${SHELL:-/bin/sh}" -l',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
    }
    const config = [
      ...ports.map((p) => `Port ${p}`),
      'ListenAddress 127.0.0.1',
      `HostKey ${join(inside, 'host_ed25519')}`,
      `AuthorizedKeysFile ${join(inside, 'authorized_keys')}`,
      `PidFile ${join(inside, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'AllowTcpForwarding yes',
      // SetEnv wins over sshd's default PATH (sshd_config(5)); a login shell's profile may set its own.
      ...(placement.path ? [`SetEnv PATH=${placement.path}`] : []),
      ...(placement.sessionHome
        ? ['Subsystem sftp /usr/lib/openssh/sftp-server', `ForceCommand ${join(inside, 'session.sh')}`]
        : ['Subsystem sftp internal-sftp']),
      // Probes that read the banner and hang up would otherwise log an error each.
      'LogLevel FATAL',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'sshd_config'), config, { mode: 0o600 });
  }

  /** The ports the instance's sshd listens on: the proxy port and, when mapped, the direct one. */
  ports(inst: InstanceState): number[] {
    return [proxySshdPort(inst), inst.endpoint.portMap['22/tcp']].filter((p): p is number => typeof p === 'number');
  }

  /** The daemon's command line, paths as the daemon sees them. */
  argv(placement: SshdPlacement): string[] {
    return [SSHD, '-D', '-e', '-f', join(placement.inside, 'sshd_config')];
  }

  /** The instance is gone: its host key and keys go too. */
  forget(id: number): void {
    rmSync(join(this.root, String(id)), { recursive: true, force: true });
  }

  close(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
