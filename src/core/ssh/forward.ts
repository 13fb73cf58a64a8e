import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { l10n } from '../l10n';
import type { SshTarget } from './remote';

/** A local port forwarded to a port on an instance by an `ssh -N -L` process. */
export interface PortForward {
  instanceId: number;
  remotePort: number;
  localPort: number;
  url: string;
  stop(): void;
  /** Resolves when the ssh process ends, for whatever reason. */
  readonly ended: Promise<void>;
}

/** A free local port: the one asked for when it is free, else any. */
export async function freeLocalPort(preferred?: number): Promise<number> {
  const tryListen = (port: number) =>
    new Promise<number | undefined>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        const got = typeof address === 'object' && address ? address.port : undefined;
        server.close(() => resolve(got));
      });
    });
  return (
    (preferred ? await tryListen(preferred) : undefined) ?? (await tryListen(0)) ?? Promise.reject(new Error(l10n.t('No free local port.')))
  );
}

/** One TCP connect to 127.0.0.1:`port`: true when something accepted it. */
export function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `ssh -N -L 127.0.0.1:<local>:localhost:<remote> <alias>` and resolves once the local
 * port accepts connections. ssh exits at once if the forward cannot be set up
 * (ExitOnForwardFailure), and its last error line becomes the rejection.
 */
export async function startPortForward(options: {
  instanceId: number;
  alias: string;
  remotePort: number;
  localPort: number;
  /** Extra ssh arguments before the alias, such as `-F <config>`. */
  sshArgs: readonly string[];
  timeoutMs?: number;
  ssh?: string;
}): Promise<PortForward> {
  const args = [
    ...options.sshArgs,
    '-N',
    '-o',
    'ExitOnForwardFailure=yes',
    '-o',
    'BatchMode=yes',
    '-L',
    `127.0.0.1:${options.localPort}:localhost:${options.remotePort}`,
    options.alias,
  ];
  const child: ChildProcess = spawn(options.ssh ?? 'ssh', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  let exited = false;
  const ended = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', (error) => {
      stderr ||= error.message;
      exited = true;
      resolve();
    });
  });
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    if (exited) {
      const reason = stderr.trim().split('\n').pop() || l10n.t('ssh exited');
      throw new Error(l10n.t('Could not forward port {0} of instance #{1}: {2}', options.remotePort, options.instanceId, reason));
    }
    // Accepting is not enough: another process may have taken the port meanwhile, and then ssh
    // exits (ExitOnForwardFailure). Ready means accepting while ssh is still alive a moment later.
    if ((await portAccepts(options.localPort)) && !(await new Promise((r) => setTimeout(r, 150)).then(() => exited))) break;
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(
        l10n.t(
          'Forwarding port {0} of instance #{1} did not start within {2} s.',
          options.remotePort,
          options.instanceId,
          Math.round((options.timeoutMs ?? 20_000) / 1000),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    instanceId: options.instanceId,
    remotePort: options.remotePort,
    localPort: options.localPort,
    url: `http://localhost:${options.localPort}/`,
    stop: () => {
      if (!exited) child.kill();
    },
    ended,
  };
}

/** A forward of `remotePort` on the instance `target` reaches, on a free local port (`preferred` when it is free). */
export async function forwardTo(target: SshTarget, remotePort: number, preferred?: number): Promise<PortForward> {
  return startPortForward({
    instanceId: target.instanceId,
    alias: target.alias,
    remotePort,
    localPort: await freeLocalPort(preferred),
    sshArgs: target.args,
  });
}

/** The forwards this window runs; each ends when stopped, when its instance stops, or with the window. */
export class PortForwards {
  private readonly forwards = new Set<PortForward>();

  add(forward: PortForward): void {
    this.forwards.add(forward);
    void forward.ended.then(() => this.forwards.delete(forward));
  }

  find(instanceId: number, remotePort: number): PortForward | undefined {
    return [...this.forwards].find((f) => f.instanceId === instanceId && f.remotePort === remotePort);
  }

  list(instanceId?: number): PortForward[] {
    return [...this.forwards].filter((f) => instanceId === undefined || f.instanceId === instanceId);
  }

  stop(forward: PortForward): void {
    forward.stop();
    this.forwards.delete(forward);
  }

  stopInstance(instanceId: number): void {
    for (const f of this.list(instanceId)) this.stop(f);
  }

  dispose(): void {
    for (const f of [...this.forwards]) this.stop(f);
  }
}
