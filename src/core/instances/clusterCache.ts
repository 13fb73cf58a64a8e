import type { Overlay } from '../api/clusters';
import type { Logger } from '../log';

/** The overlays a view groups by, and whether they are the last known ones because this cycle's listing failed. */
export interface KnownOverlays {
  overlays: readonly Overlay[];
  /** This cycle's listing failed: `overlays` are the last ones listed (none before the first success). */
  stale: boolean;
}

/**
 * The account's overlay networks, listed at most once per poll cycle (the poller's snapshot is the
 * cycle: every caller of one snapshot shares its one request). A failed listing keeps the last
 * known overlays, so the grouping stays as it was and no instance is hidden (one that no known
 * overlay lists is a plain row). An answer that arrives after a newer cycle began, or after
 * `forget`, changes nothing.
 */
export class OverlayDirectory {
  private known: readonly Overlay[] = [];
  private cycle: object | undefined;
  private pending: Promise<KnownOverlays> | undefined;
  private generation = 0;
  private lastProblem: string | undefined;

  constructor(private readonly logger?: Pick<Logger, 'warn' | 'info'>) {}

  /** The overlays for `cycle`; `list` is called only when this cycle has not been listed yet. */
  forCycle(cycle: object, list: () => Promise<readonly Overlay[]>): Promise<KnownOverlays> {
    if (this.cycle === cycle && this.pending) return this.pending;
    this.cycle = cycle;
    const generation = ++this.generation;
    this.pending = (async (): Promise<KnownOverlays> => {
      try {
        const overlays = await list();
        if (generation !== this.generation) return { overlays: this.known, stale: false };
        this.known = overlays;
        if (this.lastProblem !== undefined)
          this.logger?.info('GPU Rental: overlay networks listed again; clusters are grouped from the new list.');
        this.lastProblem = undefined;
        return { overlays, stale: false };
      } catch (error) {
        const problem = error instanceof Error ? error.message : String(error);
        // Once per distinct problem: a poll every few seconds must not fill the log with the same line.
        if (generation === this.generation && problem !== this.lastProblem) {
          this.logger?.warn(`GPU Rental: could not list overlay networks (${problem}); clusters keep their last known grouping.`);
          this.lastProblem = problem;
        }
        return { overlays: this.known, stale: true };
      }
    })();
    return this.pending;
  }

  /** The overlays last listed (none before the first success). */
  get last(): readonly Overlay[] {
    return this.known;
  }

  /** Drops what is known (another account, signed out): the next cycle lists afresh. */
  forget(): void {
    this.generation++;
    this.known = [];
    this.cycle = undefined;
    this.pending = undefined;
    this.lastProblem = undefined;
  }
}
