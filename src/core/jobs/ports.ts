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
import type { JobChoices } from './choices';
import type { JobMemory } from './memory';
import { folderExists, listJobs, resumeJob, startJob, stopJob } from './remoteJobs';
import type { ResumableStart } from './resumeScripts';

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
  /** The next byte of the log it would read. */
  readonly offset?: number;
}

/** How jobs start, list, stop and are followed on an instance: over ssh (`sshJobs`), or a fake in tests. */
export interface JobRemote {
  start: typeof startJob;
  list: typeof listJobs;
  stop: typeof stopJob;
  /** Optional in fakes that never resume (then the book uses ssh's). */
  resume?: typeof resumeJob;
  folderExists?: typeof folderExists;
  follow(options: FollowerOptions): Following;
}

export const sshJobs: JobRemote = {
  start: startJob,
  list: listJobs,
  stop: stopJob,
  resume: resumeJob,
  folderExists,
  follow: (o) => new JobFollower(o),
};

/** What a job starts with: the decisions of Run on Instance (`planJob`) and the API it stops the instance through. */
export interface RunOptions {
  command: string;
  /** The folder on the instance it runs in. */
  cwd: string;
  stopAtEnd: boolean;
  /** The API base URL the wrapper stops the instance through. */
  baseUrl: string;
  /** The job's id when the caller chose it (a cluster job: the same id on every node); else a new one. */
  jobId?: string;
  /** The row's name when the command's first line is not it (a cluster job's script). */
  label?: string;
  /** Open its terminal at once (default); false follows it quietly (a cluster's other ranks). */
  show?: boolean;
  /** Makes it resumable (see resumable.ts). */
  resumable?: ResumableStart;
  /** Where the job's end is sent (the account's Notify Me URL), when one is set up. */
  notifyUrl?: string;
}

export interface JobBookDeps {
  readonly poller: Pick<InstancePoller, 'snapshot' | 'onDidUpdate' | 'setInterest' | 'watch' | 'refresh'>;
  /** Writes the instance's SSH entry and says how ssh reaches it (the instance must be running). */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly memory: JobMemory;
  /** The user's choices per job, kept on this machine (global state in the extension; in memory when absent). */
  readonly choices?: JobChoices;
  readonly logger: Logger;
  /** Makes a job's terminal; `opened` is told when the user opens or closes it. */
  readonly terminal: (job: JobRef, opened: (open: boolean) => void) => JobTerminal;
  readonly remote?: JobRemote;
  readonly timers?: Timers;
}
