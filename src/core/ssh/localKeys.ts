import { execFile } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import nodePath, { join, type PlatformPath } from 'node:path';
import { promisify } from 'node:util';
import { ensurePrivateDir } from './files';
import { l10n } from '../l10n';

const run = promisify(execFile);

/** A local key pair: the private key's path (never read) and the public key's text. */
export interface LocalKey {
  privateKeyPath: string;
  publicKey: string;
}

/** The usual key files, best first, as ssh itself tries them; then the one this extension makes when id_ed25519 is taken. */
export const DEFAULT_KEY_NAMES = ['id_ed25519', 'id_ecdsa', 'id_rsa', 'gpu_rental_ed25519'] as const;

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * A path the user typed, with the home folder spelled out: `~` and `~/x` everywhere; on Windows
 * (`api` is path.win32) also `~\x` and `%USERPROFILE%\x` (cmd's spelling, which ssh would read as
 * its own `%u` token), so `%USERPROFILE%\.ssh\id_ed25519` names the key it means.
 */
export function expandHome(path: string, home = homedir(), api: PlatformPath = nodePath): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return api.join(home, path.slice(2));
  if (api.sep !== '\\') return path;
  if (path.startsWith('~\\')) return api.join(home, path.slice(2));
  const env = /^%(USERPROFILE|HOME)%(?=$|[\\/])/i.exec(path);
  return env ? api.join(home, path.slice(env[0].length) || '.') : path;
}

/**
 * The key to connect with: the configured identity file, else the first of the usual
 * ~/.ssh/id_* files that has its .pub beside it. Only the public half is read.
 */
export async function findLocalKey(configured: string | undefined, sshDir = join(homedir(), '.ssh')): Promise<LocalKey | undefined> {
  const candidates = configured?.trim() ? [expandHome(configured.trim())] : DEFAULT_KEY_NAMES.map((n) => join(sshDir, n));
  for (const privateKeyPath of candidates) {
    const pub = `${privateKeyPath}.pub`;
    if (!(await exists(privateKeyPath)) || !(await exists(pub))) continue;
    const publicKey = (await readFile(pub, 'utf8')).trim();
    if (/^(ssh-|ecdsa-|sk-)/.test(publicKey)) return { privateKeyPath, publicKey };
  }
  return undefined;
}

/** Where a new key goes: ~/.ssh/id_ed25519, or beside it when either half of that name exists. */
export async function newKeyPath(sshDir = join(homedir(), '.ssh')): Promise<string> {
  const usual = join(sshDir, 'id_ed25519');
  return (await exists(usual)) || (await exists(`${usual}.pub`)) ? join(sshDir, 'gpu_rental_ed25519') : usual;
}

/**
 * Makes a new ed25519 key with ssh-keygen, in a 0700 folder, never overwriting a file that is
 * already there. ssh-keygen gives the private key mode 0600.
 */
export async function generateKey(privateKeyPath: string, comment: string): Promise<LocalKey> {
  if ((await exists(privateKeyPath)) || (await exists(`${privateKeyPath}.pub`))) {
    throw new Error(
      l10n.t(
        '{0} already exists; it was left as it is. Choose it with the gpuRental.ssh.identityFile setting, or remove it first.',
        privateKeyPath,
      ),
    );
  }
  await ensurePrivateDir(join(privateKeyPath, '..'));
  try {
    const keygen = run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', privateKeyPath]);
    // A file made meanwhile makes ssh-keygen ask "Overwrite (y/n)?": the closed input answers no, so it ends.
    keygen.child.stdin?.end();
    await keygen;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? l10n.t('ssh-keygen was not found. Install OpenSSH (the ssh client), then try again.')
        : l10n.t('ssh-keygen could not make the key: {0}', (error as Error).message),
      { cause: error },
    );
  }
  return { privateKeyPath, publicKey: (await readFile(`${privateKeyPath}.pub`, 'utf8')).trim() };
}

/** The "type base64" part of a public key, to compare keys whatever their comments. */
export function keyFingerprintPart(publicKey: string): string {
  return publicKey.trim().split(/\s+/).slice(0, 2).join(' ');
}
