/**
 * Start-up scripts as real local processes, the way the service runs `onstart` in the container:
 * `bash -c <script>` when the instance reaches running, with the variables the service puts into
 * containers (CONTAINER_ID, CONTAINER_API_KEY: the instance's own key, VAST_CONTAINERLABEL,
 * PUBLIC_IPADDR, VAST_TCP_PORT_22) and the instance's env. Each runs in its own process group and
 * folder (its HOME); stop, failure, destroy and the simulator's end kill the whole group. Output
 * goes to the instance's log. Extra PATH folders go first, so a test can put a fake nvidia-smi
 * there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstanceState } from './model';

export interface OnstartOptions {
  /** The instance's own API key (what CONTAINER_API_KEY holds). */
  keyOf: (inst: InstanceState) => string | undefined;
  /** Appends a line to the instance's log. */
  log: (inst: InstanceState, line: string) => void;
  /** Folders put before PATH. */
  path?: string[];
}

export class OnstartRunner {
  private readonly root = mkdtempSync(join(tmpdir(), 'gpu-rental-onstart-'));
  private readonly running = new Map<number, ChildProcess>();

  constructor(private readonly options: OnstartOptions) {}

  /** The folder an instance's script runs in (its HOME). */
  home(id: number): string {
    return join(this.root, String(id));
  }

  /** The process (and group) id of an instance's script, until the instance stops. */
  pid(id: number): number | undefined {
    return this.running.get(id)?.pid;
  }

  start(inst: InstanceState): void {
    this.stop(inst.id);
    if (!inst.onstart?.trim()) return;
    const home = this.home(inst.id);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const userEnv = Object.fromEntries(inst.env.filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)));
    const env: NodeJS.ProcessEnv = {
      ...userEnv,
      PATH: [...(this.options.path ?? []), process.env.PATH ?? '/usr/bin:/bin'].join(':'),
      HOME: home,
      CONTAINER_ID: String(inst.id),
      CONTAINER_API_KEY: this.options.keyOf(inst) ?? '',
      VAST_CONTAINERLABEL: `C.${inst.id}`,
      PUBLIC_IPADDR: inst.endpoint.publicIp,
      ...(inst.endpoint.portMap['22/tcp'] ? { VAST_TCP_PORT_22: String(inst.endpoint.portMap['22/tcp']) } : {}),
    };
    const child = spawn('bash', ['-c', inst.onstart], { cwd: home, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.running.set(inst.id, child);
    const forward = (stream: NodeJS.ReadableStream | null, tag: string) => {
      let rest = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) this.options.log(inst, `onstart ${tag}: ${line.slice(0, 500)}`);
      });
    };
    forward(child.stdout, 'stdout');
    forward(child.stderr, 'stderr');
    child.on('error', (error) => this.options.log(inst, `onstart: could not run bash: ${error.message}`));
    // The script's own process may end while what it started in the background (a watchdog, a
    // server) goes on, as in a container: the group is kept until the instance stops.
    child.on('exit', (code, signal) => this.options.log(inst, `onstart: exited ${signal ? `on ${signal}` : `with code ${code}`}`));
  }

  /** Kills the script and everything it started (its process group): SIGTERM, then SIGKILL. */
  stop(id: number): void {
    const child = this.running.get(id);
    if (!child?.pid) return;
    this.running.delete(id);
    const group = -child.pid;
    try {
      process.kill(group, 'SIGTERM');
    } catch {
      return; // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // gone
      }
    }, 2_000);
    timer.unref();
  }

  close(): void {
    for (const id of [...this.running.keys()]) {
      const child = this.running.get(id);
      this.running.delete(id);
      try {
        if (child?.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
