import type { StoredAccess } from '../state/storedState';

/** The one idle countdown running in any window: its instance, its window, and when the claim lapses. */
export interface CountdownClaim {
  id: number;
  owner: string;
  until: number;
}

/** What window claims keep in global state: instance id → when a window last said it is connected, and the countdown's claim. */
export type ClaimsState = StoredAccess<{ connectedWindows: Record<string, number>; idleCountdown: CountdownClaim | undefined }>;

/** How often a window connected to an instance says so. */
export const HEARTBEAT_MS = 60_000;
/** A window that has not said it is connected for this long is gone. */
export const CONNECTED_FRESH_MS = 3 * HEARTBEAT_MS;
/** A countdown claim outlives its countdown by this much: the refresh and the stop that follow it. */
export const CLAIM_GRACE_MS = 30_000;

/**
 * What the windows of one editor tell each other about idle stops, through global state: which
 * instances a window is connected to (a heartbeat per instance), and which window counts down an
 * idle instance (one countdown at a time, across all windows). Global state has no
 * compare-and-set, so two windows that check in the same instant may both win; the claim is there
 * so that does not happen in practice, not to lock.
 */
export class WindowClaims {
  constructor(
    private readonly state: ClaimsState,
    /** This window; VS Code's session id. */
    readonly owner: string,
  ) {}

  /** A window connected to `instanceId` says so now. */
  async heartbeat(instanceId: number, nowMs: number): Promise<void> {
    await this.state.change('connectedWindows', (windows) => ({ ...windows, [String(instanceId)]: nowMs }));
  }

  /** The window connected to `instanceId` closes: it no longer counts as connected. */
  async disconnect(instanceId: number): Promise<void> {
    await this.state.change('connectedWindows', (windows) => {
      const rest = { ...windows };
      delete rest[String(instanceId)];
      return rest;
    });
  }

  /** Instances some window said it is connected to within the last CONNECTED_FRESH_MS. */
  connected(nowMs: number): Set<number> {
    const ids = new Set<number>();
    for (const [id, at] of Object.entries(this.state.get('connectedWindows'))) if (nowMs - at < CONNECTED_FRESH_MS) ids.add(Number(id));
    return ids;
  }

  /**
   * Claims the one idle countdown for `instanceId`, for `countdownMs` plus CLAIM_GRACE_MS. True
   * when this window may count down: no other window holds a live claim (its own claim it renews).
   */
  async claimCountdown(instanceId: number, nowMs: number, countdownMs: number): Promise<boolean> {
    const claim = this.state.get('idleCountdown');
    if (claim && claim.owner !== this.owner && claim.until > nowMs) return false;
    await this.state.update('idleCountdown', { id: instanceId, owner: this.owner, until: nowMs + countdownMs + CLAIM_GRACE_MS });
    return true;
  }

  /**
   * The countdown is over (stopped, cancelled or given up): another window may count down now.
   * Only this window's own claim is released: a countdown that outlasted its claim must not clear
   * the claim another window took meanwhile, or a third window could count down the same instance.
   */
  async releaseCountdown(): Promise<void> {
    await this.state.change('idleCountdown', (claim) => (claim && claim.owner !== this.owner ? claim : undefined));
  }
}
