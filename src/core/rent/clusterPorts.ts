/**
 * What Rent Cluster needs from outside core's rent area, as the few methods it calls: the overlay
 * routes (the client lives in src/core/api, wired by the caller), the renter with a way to wait for
 * a pending rent's outcome, the boot watcher and the destroy. Also what the flow says of each node.
 */
import type { Offer } from '../api/offers';
import type { ActionResult } from '../instances/actions';
import type { PendingRent } from './journal';
import type { Renter, Settlement } from './renter';

/** An overlay as `GET /api/v0/overlay/` lists it (only the fields the flow reads). */
export interface OverlaySummary {
  overlay_id: number;
  name: string;
  cluster_id?: number | null;
}

/** What `POST /api/v0/overlay/` came to: made, refused (nothing made), or an answer not seen. */
export type OverlayCreate =
  /** The id, when the answer gave one. */
  | { kind: 'created'; overlayId?: number }
  /** The service said no (a name taken or invalid, an unknown cluster, a permission): its words. */
  | { kind: 'refused'; message: string }
  /** No readable answer: the overlay may exist. */
  | { kind: 'unknown'; message: string };

/** The overlay routes the flow calls. */
export interface OverlayPort {
  createOverlay(clusterId: number, name: string): Promise<OverlayCreate>;
  /** Resolves when deleted; rejects (with the reason) when it was not, or the answer was not seen. */
  deleteOverlay(name: string): Promise<void>;
  listOverlays(): Promise<readonly OverlaySummary[]>;
}

/** The renter as the cluster flow uses it: one create at a time, journaled, and the wait for an unseen outcome. */
export interface ClusterRenter {
  rent: Renter['rent'];
  /**
   * Resolves with the outcome of a rent that answered "uncertain" (the renter is checking the
   * account already); undefined when another window settled it and this one cannot tell.
   */
  settled(entry: PendingRent): Promise<Settlement | undefined>;
}

/**
 * The renter's own `settled`: its next settlement of this label. Undefined when the entry has left
 * the journal already (settled, and told, elsewhere).
 */
export function clusterRenter(renter: Pick<Renter, 'rent' | 'onDidSettle' | 'journal'>): ClusterRenter {
  return {
    rent: (...args) => renter.rent(...args),
    settled: (entry) =>
      new Promise((resolve) => {
        const subscription = renter.onDidSettle((s) => {
          if (s.entry.label !== entry.label) return;
          subscription.dispose();
          resolve(s);
        });
        if (!renter.journal.get(entry.label)) {
          subscription.dispose();
          resolve(undefined);
        }
      }),
  };
}

/** What the boot watcher saw of a new node: it runs, or it failed (with the reason, as a clause). */
export type BootResult = { kind: 'running' } | { kind: 'failed'; reason: string };

/** What a destroy came to (`destroyInstance` in src/core/instances/actions.ts). */
export type DestroyResult = Pick<ActionResult, 'kind' | 'message'>;

/** Every node's truth at the end: rented (and running), unknown, failed (nothing made) or destroyed. */
export type NodeState = 'rented' | 'unknown' | 'failed' | 'destroyed';

/** One rent of a node (a replaced node appears once per attempt, in order). */
export interface ClusterNode {
  /** The node's index in the cluster, from 0 (NODE_RANK). */
  rank: number;
  offer: Offer;
  label: string;
  /** "H100 SXM ×8", for messages. */
  description: string;
  perHour: number;
  state: NodeState;
  instanceId?: number;
  /** Why it failed, or why its outcome is unknown: a clause ("the offer was taken before the rent landed"). */
  reason?: string;
  /** What a destroy of it said, when that did not end in "destroyed": a sentence. */
  note?: string;
}
