/**
 * The ports and shapes Run on Cluster's copy from rank 0 shares between fanout.ts (the decisions)
 * and fanoutOverlap.ts (its overlap with the upload): how a script runs on a node, what the copy
 * needs from the window, and the plan and daemon of one copy.
 */

import type { Instance } from '../../api/instances';
import type { Logger } from '../../log';
import type { Progress } from '../../progress';
import type { RemoteResult } from '../../ssh/remote';
import type { UploadRequest } from '../run';
import type { NodeProbe } from './fanoutScripts';

/** How a script runs on a node over ssh. */
export interface RemoteRun {
  /** Written to the script's stdin, then closed; a promise when it resolves (the script waits meanwhile). */
  readonly input?: string | Promise<string>;
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
}

/** The ports of the copy from rank 0. */
export interface FanoutPorts {
  /** The files an upload of `localDir` sends, relative to it (transfer's uploadedFiles with the exclude setting). */
  files(localDir: string): Promise<readonly string[]>;
  /** Runs a bash script on the node over ssh; resolves its exit code and output, rejects when ssh could not (timeout, Cancel). */
  remote(instance: Instance, script: string, o: RemoteRun): Promise<RemoteResult>;
  /** The copy's cancellable progress (ui: a notification); without it, nothing shows or cancels. */
  readonly progress?: Progress;
  /** The ports rank 0's daemon tries (default FANOUT_PORTS). */
  readonly ports?: readonly number[];
  /** Names this copy's folder on rank 0 (default: 12 random hex digits). */
  token?(): string;
  /** The clock that tells a daemon near its time limit after a long upload (default Date.now). */
  now?(): number;
  /** How long the other nodes wait between pulls while rank 0's upload runs (default fanoutOverlap's EARLY_PULL_MS). */
  readonly earlyPullMs?: number;
  /** How long rank 0's upload runs alone before the copy's own connections are made (default fanoutOverlap's CONNECT_AFTER_MS). */
  readonly connectAfterMs?: number;
}

export interface FanoutDeps {
  /** Upload Folder's flow for one node, quiet; resolves the folder on the node, undefined when it did not complete. */
  readonly upload: (instanceId: number, request: UploadRequest) => Promise<string | undefined>;
  /** Without it, every node gets its own upload. */
  readonly fanout?: FanoutPorts;
  readonly logger: Logger;
}

/** How the workspace reached one node: its folder there, or not (failed), or not tried because rank 0's upload failed. */
export type NodeUpload = { readonly kind: 'uploaded'; readonly dir: string } | { readonly kind: 'failed' } | { readonly kind: 'skipped' };

/** One copy: rank 0, what it said, the folder, and the nodes that pull from it. */
export interface CopyPlan {
  readonly root: Instance;
  readonly rootProbe: NodeProbe;
  /** The folder the upload goes to on rank 0 (the same path on every node). */
  readonly dir: string;
  readonly localDir: string;
  readonly pullers: ReadonlyArray<{ readonly n: Instance; readonly rank: number; readonly address: string }>;
}

/** A started daemon: its folder (to stop it by) and, when it listens, its port. */
export interface Daemon {
  readonly folder: string;
  readonly port?: number;
}
