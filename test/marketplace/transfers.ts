/**
 * Copies the service runs for the user, on real files: between two instances' containers
 * (`copy_direct`) and between an instance and a cloud connection (`rclone`). Each account has one
 * seeded cloud connection ("sim-bucket", type s3) backed by a folder on this machine; the control
 * API adds more. A copy starts after a short delay, runs file by file, and reports in the
 * destination instance's `status_msg` and log; cancelling stops it between two files.
 *
 * Paths follow rsync: a source ending in `/` copies what the folder holds, without the slash the
 * folder itself goes into the destination folder; a file goes into a destination that is a folder
 * or ends in `/`, else to that name. As `rsync -a` (the service's copy), every file and folder keeps
 * its modification time, and empty folders come too. Container paths are the container's own (/root, /workspace,
 * /tmp, through Containers.hostPath); anything else is refused, so a copy never writes on this
 * machine outside an instance's store.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, realpath, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix, sep } from 'node:path';
import type { Containers } from './container';
import { addLog } from './lifecycle';
import type { InstanceState, Ms } from './model';

/** The folders of a container a copy may read or write. */
const CONTAINER_TOPS = ['/root', '/workspace', '/tmp'];

/** How long a copy waits before it starts, as the service's copies do (shorter, for tests). */
export const COPY_START_DELAY_MS = 200;

export interface CloudConnection {
  id: number;
  accountId: number;
  cloud_type: string;
  name: string;
  /** The folder on this machine that stands for the bucket. */
  folder: string;
}

/** One side of a copy: where it is on this machine, the folder it may not leave, and how messages name it. */
export interface CopyEnd {
  host: string;
  /** The instance's store or the bucket's folder: nothing is read or written outside it, links included. */
  root: string;
  label: string;
}

export interface CopyJob {
  kind: 'copy' | 'cloud';
  /** The instance whose status shows the copy (the destination, or the instance of a cloud copy). */
  instanceId: number;
  from: CopyEnd;
  to: CopyEnd;
  /** The source path ends in `/`: copy what the folder holds. */
  contentsOnly: boolean;
}

interface Active {
  job: CopyJob;
  cancelled: boolean;
  timer?: NodeJS.Timeout;
}

/** Normalised, absolute, without a trailing slash (the caller keeps whether there was one). */
function tidy(path: string): string {
  const absolute = posix.normalize(posix.join('/', path.trim()));
  return absolute.length > 1 ? absolute.replace(/\/+$/, '') : absolute;
}

/** A path given by a client, checked: a container path under one of CONTAINER_TOPS. */
export function containerPathOf(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.trim() === '' || path.includes('\0')) return undefined;
  const absolute = tidy(path);
  return CONTAINER_TOPS.some((top) => absolute === top || absolute.startsWith(`${top}/`)) ? absolute : undefined;
}

/** A path inside a bucket, as an absolute path from its top ('..' cannot climb above it). */
export function bucketPathOf(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.includes('\0')) return undefined;
  return tidy(path);
}

export class Transfers {
  private cloudRoot: string | undefined;
  private readonly connections: CloudConnection[] = [];
  private nextConnectionId = 101;
  private readonly active = new Map<number, Active>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly containers: Containers | undefined,
    private readonly instance: (id: number) => InstanceState | undefined,
    private readonly now: () => Ms,
  ) {}

  /** Whether instances have files here (the simulator runs containers). */
  get available(): boolean {
    return this.containers !== undefined;
  }

  /** One end of a copy in an instance's container, from a checked container path. */
  containerEnd(instanceId: number, containerPath: string, label: string): CopyEnd {
    if (!this.containers) throw new Error('this simulator runs no containers');
    return { host: this.containers.hostPath(instanceId, containerPath), root: this.containers.store(instanceId), label };
  }

  /** The account's cloud connections; the first call makes its seeded one. */
  connectionsOf(accountId: number): CloudConnection[] {
    if (!this.connections.some((c) => c.accountId === accountId)) this.addConnection(accountId, { name: 'sim-bucket', cloudType: 's3' });
    return this.connections.filter((c) => c.accountId === accountId);
  }

  addConnection(accountId: number, o: { name?: string; cloudType?: string } = {}): CloudConnection {
    this.cloudRoot ??= mkdtempSync(join(tmpdir(), 'gpu-rental-cloud-'));
    const id = this.nextConnectionId++;
    const folder = join(this.cloudRoot, String(id));
    mkdirSync(folder, { recursive: true });
    const connection = { id, accountId, cloud_type: o.cloudType ?? 's3', name: o.name ?? `sim-bucket-${id}`, folder };
    this.connections.push(connection);
    return connection;
  }

  /** Whether a copy shows on this instance now. */
  busy(instanceId: number): boolean {
    return this.active.has(instanceId);
  }

  /** Starts a copy after a short delay; a copy already running to the same instance is cancelled first. */
  start(job: CopyJob): void {
    this.cancel(job.instanceId);
    const active: Active = { job, cancelled: false };
    this.active.set(job.instanceId, active);
    this.note(job.instanceId, `${this.title(job)}: starting`, `${this.title(job)} ${job.from.label} -> ${job.to.label}: queued`);
    active.timer = setTimeout(() => {
      this.timers.delete(active.timer!);
      void this.run(active);
    }, COPY_START_DELAY_MS);
    this.timers.add(active.timer);
  }

  /** Cancels the copy showing on an instance; answers whether one was running. */
  cancel(instanceId: number): boolean {
    const active = this.active.get(instanceId);
    if (!active) return false;
    active.cancelled = true;
    clearTimeout(active.timer);
    this.active.delete(instanceId);
    this.note(instanceId, `${this.title(active.job)}: canceled`, `${this.title(active.job)}: canceled`);
    return true;
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const active of this.active.values()) active.cancelled = true;
    this.active.clear();
    if (this.cloudRoot) rmSync(this.cloudRoot, { recursive: true, force: true });
  }

  private title(job: CopyJob): string {
    return job.kind === 'copy' ? 'Remote to Remote copy' : 'Cloud copy';
  }

  /** Sets the instance's status message while it runs, and logs a line. */
  private note(instanceId: number, status: string, line: string): void {
    const inst = this.instance(instanceId);
    if (!inst) return;
    inst.transferNote = status;
    addLog(inst, this.now(), line);
  }

  private async run(active: Active): Promise<void> {
    const { job } = active;
    let files = 0;
    let bytes = 0;
    try {
      const plan = await this.plan(job);
      const total = plan.files.length;
      for (const [from, to] of plan.files) {
        if (active.cancelled) return;
        await folderWithin(job.to.root, dirname(to));
        if ((await lstat(to).catch(() => undefined))?.isSymbolicLink()) throw new Error(`${to}: is a link; not written through`);
        await copyFile(from, to);
        const source = await stat(from);
        await utimes(to, source.atime, source.mtime);
        files += 1;
        bytes += (await stat(to)).size;
        if (active.cancelled) return;
        const inst = this.instance(job.instanceId);
        if (inst) inst.transferNote = `${this.title(job)}: ${files}/${total} files, ${bytes} bytes`;
      }
      // The folders last, deepest first, as rsync does: writing their files changed their times.
      for (const [from, to] of [...plan.folders].reverse()) {
        if (active.cancelled) return;
        await folderWithin(job.to.root, to);
        const source = await stat(from);
        await utimes(to, source.atime, source.mtime);
      }
      if (active.cancelled) return;
      this.active.delete(job.instanceId);
      this.note(
        job.instanceId,
        `${this.title(job)}: done, ${files} files, ${bytes} bytes`,
        `${this.title(job)}: done, ${files} files, ${bytes} bytes`,
      );
    } catch (error) {
      if (active.cancelled) return;
      this.active.delete(job.instanceId);
      const message = (error as NodeJS.ErrnoException).code === 'ENOSPC' ? 'no space left on device' : (error as Error).message;
      const said = message.replaceAll(job.from.host, job.from.label).replaceAll(job.to.host, job.to.label);
      this.note(
        job.instanceId,
        `${this.title(job)}: failed after ${files} files: ${said}`,
        `${this.title(job)}: failed after ${files} files: ${said}`,
      );
    }
  }

  /**
   * Every file to copy and every folder to make, each as [host source, host destination] (folders
   * parents first), following rsync's rules for slashes.
   */
  private async plan(job: CopyJob): Promise<{ files: Array<[string, string]>; folders: Array<[string, string]> }> {
    const source = await lstat(job.from.host).catch(() => undefined);
    if (!source || source.isSymbolicLink() || !within(await realpath(job.from.root), await realpath(job.from.host))) {
      throw new Error(`${job.from.label}: no such file or directory`);
    }
    const target = await stat(job.to.host).catch(() => undefined);
    const toFolder = target?.isDirectory() === true || job.to.label.endsWith('/');
    if (source.isFile())
      return { files: [[job.from.host, toFolder ? join(job.to.host, basename(job.from.host)) : job.to.host]], folders: [] };
    const root = job.contentsOnly ? job.to.host : join(job.to.host, basename(job.from.host));
    const files: Array<[string, string]> = [];
    // The top too: `rsync -a src/ dst/` gives dst the time of src.
    const folders: Array<[string, string]> = [[job.from.host, root]];
    const walk = async (from: string, to: string) => {
      for (const entry of await readdir(from, { withFileTypes: true })) {
        if (entry.isDirectory()) {
          folders.push([join(from, entry.name), join(to, entry.name)]);
          await walk(join(from, entry.name), join(to, entry.name));
        } else if (entry.isFile()) files.push([join(from, entry.name), join(to, entry.name)]);
      }
    };
    await folderWithin(job.to.root, root);
    await walk(job.from.host, root);
    return { files, folders };
  }
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/**
 * Makes a folder, refusing when it (or the part of it that exists) resolves outside `root`: a link
 * in an instance's store pointing at /etc must not let a copy write on this machine.
 */
async function folderWithin(root: string, folder: string): Promise<void> {
  const top = await realpath(root);
  let existing = folder;
  while (!(await stat(existing).catch(() => undefined))) existing = dirname(existing);
  if (!within(top, await realpath(existing))) throw new Error(`${folder}: outside the instance`);
  await mkdir(folder, { recursive: true });
  if (!within(top, await realpath(folder))) throw new Error(`${folder}: outside the instance`);
}
