import { hostname } from 'node:os';
import type { Logger } from '../log';
import { l10n } from '../l10n';
import type { Prompts } from '../prompts';
import { generateKey, newKeyPath, type LocalKey } from './localKeys';

/**
 * No SSH key was found for a connect: asks, then makes an ed25519 key where none exists. Resolves
 * undefined when the user declines. `prompts` is a getter (core's port; only its confirm is asked):
 * integration tests replace the prompts.
 */
export async function offerNewSshKey(prompts: () => Pick<Prompts, 'confirm'>, logger: Logger): Promise<LocalKey | undefined> {
  const path = await newKeyPath();
  const ok = await prompts().confirm(
    l10n.t('No SSH key found. Create one?'),
    l10n.t(
      'GPU Rental needs an SSH key to connect. It will create a new ed25519 key at {0} (no passphrase; nothing is overwritten) and register its public half on your account. Or cancel and choose a key with the gpuRental.ssh.identityFile setting.',
      path,
    ),
    l10n.t('Create Key'),
  );
  if (!ok) return undefined;
  const key = await generateKey(path, `gpu-rental@${hostname()}`);
  logger.info(`Created the SSH key ${path}.`);
  return key;
}
