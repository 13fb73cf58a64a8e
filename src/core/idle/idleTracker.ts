import type { Instance } from '../api/instances';
import { instancePhase } from '../instances/phase';

/**
 * The editor's second line of defence against forgotten GPUs: it notes, per running instance,
 * when it was last in use (running for the first time here, GPU above the threshold, or a
 * connected window, terminal or port forward) and reports those idle for longer than the limit.
 */
export class IdleTracker {
  private readonly lastActive = new Map<number, number>();

  /**
   * Feeds the latest list. `connected` are ids with a window, terminal or forward open on them.
   * Returns the ids idle for at least `idleMs`, longest idle first.
   */
  update(
    instances: readonly Instance[],
    connected: ReadonlySet<number>,
    options: { nowMs: number; idleMs: number; gpuThreshold: number },
  ): number[] {
    const running = new Set<number>();
    for (const i of instances) {
      if (instancePhase(i) !== 'running') continue;
      running.add(i.id);
      const busy = (i.gpu_util ?? 0) > options.gpuThreshold || connected.has(i.id);
      if (busy || !this.lastActive.has(i.id)) this.lastActive.set(i.id, options.nowMs);
    }
    // Stopped or gone: start afresh if it runs again. (Runs on every poll over every instance: no
    // copies of the map, and no pair per entry.)
    const idle: Array<{ id: number; at: number }> = [];
    this.lastActive.forEach((at, id) => {
      if (!running.has(id)) this.lastActive.delete(id);
      else if (options.nowMs - at >= options.idleMs) idle.push({ id, at });
    });
    return idle.sort((a, b) => a.at - b.at).map((x) => x.id);
  }

  /** How long an instance has been idle, in ms (undefined when not tracked). */
  idleFor(id: number, nowMs: number): number | undefined {
    const at = this.lastActive.get(id);
    return at === undefined ? undefined : nowMs - at;
  }

  /** The user kept it: count it as used now. */
  touch(id: number, nowMs: number): void {
    if (this.lastActive.has(id)) this.lastActive.set(id, nowMs);
  }
}
