/**
 * What the job book is handed: where a job's output goes (a terminal), and how jobs start, list,
 * stop and are followed on an instance (over ssh, or a fake in tests).
 */
import type { Instance } from '../api/instances';
import type { Disposable } from '../events';
import type { InstancePoller, Timers } from '../instances/poller';
import type { Logger } from '../log';
import type { SshTarget } from '../ssh/remote';
import { JobFollower, type FollowerOptions } from './follower';
import type { JobMemory } from './memory';
import { listJobs, startJob, stopJob } from './remoteJobs';

/** Where one job's output goes: its terminal in VS Code (ui's JobOutput), a recorder in tests. */
export interface JobTerminal extends Disposable {
  /** The job's bytes, in order. */
  append(chunk: Buffer): void;
  /** A line of the extension's own (reconnecting, ended), told apart from the job's output. */
  note(line: string): void;
  /** Opens it (once) and shows it; `preserveFocus` leaves the cursor where it is. */
  show(preserveFocus?: boolean): void;
  readonly isOpen: boolean;
  /** Everything kept so far, as it shows it. */
  readonly text: string;
}

/** The job a terminal is for. */
export interface JobRef {
  readonly instanceId: number;
  readonly jobId: string;
  readonly label: string;
}

/** A follower as the book drives it. */
export interface Following extends Disposable {
  start(): Promise<void>;
  poke(): void;
}

/** How jobs start, list, stop and are followed on an instance: over ssh (`sshJobs`), or a fake in tests. */
export interface JobRemote {
  start: typeof startJob;
  list: typeof listJobs;
  stop: typeof stopJob;
  follow(options: FollowerOptions): Following;
}

export const sshJobs: JobRemote = { start: startJob, list: listJobs, stop: stopJob, follow: (o) => new JobFollower(o) };

export interface JobBookDeps {
  readonly poller: Pick<InstancePoller, 'snapshot' | 'onDidUpdate' | 'setInterest' | 'watch' | 'refresh'>;
  /** Writes the instance's SSH entry and says how ssh reaches it (the instance must be running). */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly memory: JobMemory;
  readonly logger: Logger;
  /** Makes a job's terminal; `opened` is told when the user opens or closes it. */
  readonly terminal: (job: JobRef, opened: (open: boolean) => void) => JobTerminal;
  readonly remote?: JobRemote;
  readonly timers?: Timers;
}
