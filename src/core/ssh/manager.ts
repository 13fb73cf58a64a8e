import { lstat, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Logger } from '../log';
import { hostEntryText, includeInstructions, withInclude, withoutInclude, type HostEntry } from './config';
import { ensurePrivateDir, readIfExists, withFileLock, writeFileAtomic } from './files';
import { expandHome } from './keys';

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
    super(`${path} cannot be edited (${reason}). Add these lines at its top by hand, then connect again:\n${lines}`);
    this.name = 'SshConfigNotWritable';
  }
}

/**
 * Keeps one host file per instance in the managed folder and the single Include line in the
 * user's config. Each write is atomic and done under a lock, so two windows never interleave.
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

  /** Writes (or rewrites: addresses change after a restart) one instance's entry, and the Include. */
  async writeHost(entry: Omit<HostEntry, 'knownHostsFile'>): Promise<void> {
    await ensurePrivateDir(this.paths.managedDir);
    await writeFileAtomic(this.hostFile(entry.alias), hostEntryText({ ...entry, knownHostsFile: this.knownHostsFile(entry.alias) }));
    await this.ensureInclude();
  }

  /** Removes an instance's entry and its known hosts, when it is destroyed. */
  async removeHost(alias: string): Promise<void> {
    await rm(this.hostFile(alias), { force: true });
    await rm(this.knownHostsFile(alias), { force: true });
  }

  /** Adds the Include block to the user's config once; throws SshConfigNotWritable when it cannot. */
  async ensureInclude(): Promise<boolean> {
    return this.editUserConfig((text) => withInclude(text, this.includePattern));
  }

  /** Takes the block out again (sign-out of every profile, or uninstall). */
  async removeInclude(): Promise<boolean> {
    return this.editUserConfig((text) => withoutInclude(text));
  }

  private async editUserConfig(edit: (text: string) => { text: string; changed: boolean }): Promise<boolean> {
    const path = this.paths.userConfig;
    const lines = includeInstructions(this.includePattern);
    const link = await lstat(path).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      // Replacing it would break the link a dotfile manager keeps; never clobber it.
      const text = (await readIfExists(path)) ?? '';
      if (!edit(text).changed) return false;
      throw new SshConfigNotWritable(path, lines, 'it is a symbolic link, probably managed by a dotfile tool');
    }
    await ensurePrivateDir(dirname(path));
    try {
      return await withFileLock(path, async () => {
        const before = (await readIfExists(path)) ?? '';
        const after = edit(before);
        if (!after.changed) return false;
        await writeFileAtomic(path, after.text);
        this.logger.info(`Updated the GPU Rental block in ${path}.`);
        return true;
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw new SshConfigNotWritable(path, lines, code === 'EROFS' ? 'the file system is read-only' : 'permission denied');
      throw error;
    }
  }
}
