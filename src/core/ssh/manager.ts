import { constants, type Stats } from 'node:fs';
import { access, lstat, readdir, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../log';
import { SshConfigError, hostEntryText, includeInstructions, parseHostAlias, withInclude, withoutInclude, type HostEntry } from './config';
import { ensurePrivateDir, readIfExists, withFileLock, writeFileAtomic, writeFileInPlace } from './files';
import { expandHome } from './localKeys';
import { withoutHostName } from './nodeAlias';
import { l10n } from '../l10n';

export interface SshPaths {
  /** The user's SSH config: `remote.SSH.configFile`, else ~/.ssh/config. */
  userConfig: string;
  /** The extension's own folder of per-instance files. */
  managedDir: string;
}

export function sshPaths(configFileSetting: string | undefined, home = homedir()): SshPaths {
  const userConfig = configFileSetting?.trim() ? expandHome(configFileSetting.trim(), home) : join(home, '.ssh', 'config');
  return { userConfig, managedDir: join(home, '.ssh', 'gpu-rental') };
}

/**
 * The user's config cannot be edited (read-only, or a link that a dotfile tool manages): nothing
 * was changed, and `lines` is exactly what to add at the top by hand.
 */
export class SshConfigNotWritable extends Error {
  constructor(
    readonly path: string,
    readonly lines: string,
    reason: string,
  ) {
    super(l10n.t('{0} cannot be edited ({1}). Add these lines at its top by hand, then connect again:\n{2}', path, reason, lines));
    this.name = 'SshConfigNotWritable';
  }
}

/**
 * Keeps one host file per instance in the managed folder and the single Include line in the
 * user's config. Each write is done under a lock, so two windows never interleave, and is atomic
 * (temp file and rename) except for a hard-linked config, rewritten in place to keep its links.
 * The user's config is edited as bytes: only the block's own bytes are ours.
 */
export class SshConfigManager {
  constructor(
    readonly paths: SshPaths,
    private readonly logger: Logger,
  ) {}

  get includePattern(): string {
    return join(this.paths.managedDir, '*.conf');
  }

  hostFile(alias: string): string {
    return join(this.paths.managedDir, `${alias}.conf`);
  }

  knownHostsFile(alias: string): string {
    return join(this.paths.managedDir, `${alias}.known_hosts`);
  }

  /**
   * Writes (or rewrites: addresses change after a restart) one instance's entry, and the Include.
   * Its friendly name, if any, is first taken off every other managed entry, so that it reaches
   * this instance only (ssh would take the first file that has it).
   */
  async writeHost(entry: Omit<HostEntry, 'knownHostsFile'>): Promise<void> {
    const text = hostEntryText({ ...entry, knownHostsFile: this.knownHostsFile(entry.alias) });
    await ensurePrivateDir(this.paths.managedDir);
    await this.withEntriesLock(async () => {
      if (entry.friendlyAlias) await this.takeName(entry.friendlyAlias, entry.alias);
      await writeFileAtomic(this.hostFile(entry.alias), text);
    });
    await this.ensureInclude();
  }

  /** Removes an instance's entry (its friendly name with it) and its known hosts, when it is destroyed. */
  async removeHost(alias: string): Promise<void> {
    const remove = async () => {
      await rm(this.hostFile(alias), { force: true });
      await rm(this.knownHostsFile(alias), { force: true });
    };
    // No folder, nothing to remove, and no lock to make it for.
    if (!(await stat(this.paths.managedDir).catch(() => undefined))) return remove();
    await this.withEntriesLock(remove);
  }

  /**
   * One edit of the managed entries at a time, across windows: taking a name off another entry
   * reads and rewrites that entry, which must not undo its own rewrite or removal meanwhile.
   */
  private withEntriesLock<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(join(this.paths.managedDir, 'entries'), fn);
  }

  /**
   * Takes `name` off every managed entry but `owner`'s. Only the folder's own instance files
   * (`<id alias>.conf`, plain files) are read; nothing outside the folder is touched.
   */
  private async takeName(name: string, owner: string): Promise<void> {
    const files = await readdir(this.paths.managedDir, { withFileTypes: true });
    for (const file of files) {
      const alias = file.name.endsWith('.conf') ? file.name.slice(0, -'.conf'.length) : '';
      if (!file.isFile() || alias === owner || !parseHostAlias(alias)) continue;
      const path = this.hostFile(alias);
      const before = await readIfExists(path);
      if (!before) continue;
      const after = withoutHostName(before.toString('utf8'), name);
      if (!after.changed) continue;
      await writeFileAtomic(path, after.text);
      this.logger.info(`SSH name ${name} moved from ${alias} to ${owner}.`);
    }
  }

  /** Adds the Include block to the user's config once; throws SshConfigNotWritable when it cannot. */
  async ensureInclude(): Promise<boolean> {
    return this.editUserConfig((bytes) => withInclude(bytes, this.includePattern));
  }

  /** Takes the block out again (sign-out of every profile, or uninstall). */
  async removeInclude(): Promise<boolean> {
    return this.editUserConfig((bytes) => withoutInclude(bytes));
  }

  private async editUserConfig(edit: (bytes: Buffer) => { text: Buffer; changed: boolean }): Promise<boolean> {
    const path = this.paths.userConfig;
    const lines = includeInstructions(this.includePattern);
    const link = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (link?.isSymbolicLink()) {
      // Replacing it would break the link a dotfile manager keeps; never clobber it.
      const target = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (target) assertRegularFile(path, target);
      const bytes = await readConfig(path);
      if (!edit(bytes).changed) return false;
      throw new SshConfigNotWritable(
        path,
        lines,
        l10n.t('it is a symbolic link, probably managed by a dotfile tool, and replacing it would break the link'),
      );
    }
    if (link) assertRegularFile(path, link);
    await ensurePrivateDir(dirname(path));
    try {
      return await withFileLock(path, async () => {
        const current = await stat(path).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined;
          throw error;
        });
        if (current) assertRegularFile(path, current);
        const before = await readConfig(path);
        const after = edit(before);
        if (!after.changed) return false;
        if (current) await assertWritable(path, current, lines);
        if (current && current.nlink > 1) {
          // A temp file and rename would leave the other names on the old inode.
          await writeFileInPlace(path, after.text);
        } else {
          await writeFileAtomic(path, after.text);
        }
        this.logger.info(`Updated the GPU Rental block in ${path}.`);
        return true;
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
        throw new SshConfigNotWritable(
          path,
          lines,
          code === 'EROFS' ? l10n.t('the file system is read-only') : l10n.t('permission denied'),
        );
      throw error;
    }
  }
}

/** The config's bytes; empty when it does not exist yet. */
async function readConfig(path: string): Promise<Buffer> {
  try {
    return (await readIfExists(path)) ?? Buffer.alloc(0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') throw notAFile(path, 'a folder');
    throw error;
  }
}

function assertRegularFile(path: string, info: Stats): void {
  if (info.isDirectory()) throw notAFile(path, 'a folder');
  if (!info.isFile()) throw notAFile(path, l10n.t('not a regular file (a pipe, socket or device)'));
}

function notAFile(path: string, what: string): SshConfigError {
  return new SshConfigError(
    l10n.t(
      'The SSH config {0} is {1}, so ssh cannot read it and GPU Rental cannot add its Include there; nothing was changed. Point the remote.SSH.configFile setting at a file (or move {2} away so a new config file can be made there), then connect again.',
      path,
      what,
      path,
    ),
  );
}

/**
 * A config without write permission is the user's way of saying "do not edit": refused, even for
 * root, whom the file system would let through, and even though a rename would get past it.
 */
async function assertWritable(path: string, info: Stats, lines: string): Promise<void> {
  const mode = info.mode & 0o777;
  if ((mode & 0o222) === 0)
    throw new SshConfigNotWritable(path, lines, l10n.t('it is read-only, mode {0}', mode.toString(8).padStart(4, '0')));
  try {
    await access(path, constants.W_OK);
  } catch {
    throw new SshConfigNotWritable(path, lines, l10n.t('permission denied'));
  }
}
