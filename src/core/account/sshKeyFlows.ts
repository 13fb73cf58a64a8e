/**
 * The SSH keys of the account and of an instance, as core flows: add (from a file, generated, or
 * pasted), delete, attach to an instance, detach. Only a public key is ever sent.
 */
import type { SshKey, SshKeysApi } from '../api/account';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import { keyFingerprintPart } from '../ssh/localKeys';
import { info, type Outcome } from './notice';

export interface SshKeyFlowDeps {
  readonly ask: Ask;
  readonly sshKeys: Pick<SshKeysApi, 'list' | 'create' | 'delete' | 'attach' | 'listForInstance' | 'detach'>;
  /** The text of a .pub file the user opens; undefined when dismissed. */
  readonly readPublicKeyFile: () => Promise<string | undefined>;
  /** Generates a new ed25519 key in ~/.ssh (never overwriting a file); resolves with its public half. */
  readonly generateKey: () => Promise<string>;
}

/** The public key the user gives: from a .pub file, generated, or pasted; undefined when cancelled. */
async function askPublicKey(d: SshKeyFlowDeps): Promise<string | undefined> {
  const how = await d.ask.pick({
    title: l10n.t('GPU Rental: Add an SSH key to the account'),
    items: [
      { label: l10n.t('$(file) From a .pub file…'), value: 'file' as const },
      {
        label: l10n.t('$(add) Generate a new ed25519 key'),
        description: l10n.t('in ~/.ssh, never overwriting a file'),
        value: 'generate' as const,
      },
      { label: l10n.t('$(edit) Paste a public key…'), value: 'paste' as const },
    ],
  });
  if (how === 'file') return d.readPublicKeyFile();
  if (how === 'generate') return d.generateKey();
  if (how !== 'paste') return undefined;
  return d.ask.input({ title: l10n.t('GPU Rental: paste a public key'), prompt: '', placeholder: l10n.t('ssh-ed25519 AAAA… comment') });
}

/** Adds a public key to the account (given, or asked); a key already there is not added twice. Resolves with the key. */
export async function addSshKey(d: SshKeyFlowDeps, given?: string): Promise<Outcome<SshKey | undefined>> {
  const publicKey = (given?.trim() || (await askPublicKey(d)))?.trim();
  if (!publicKey) return { value: undefined };
  if (!/^(ssh-|ecdsa-|sk-)\S+ \S+/.test(publicKey))
    throw new Error(
      l10n.t(
        'That is not an OpenSSH public key (it starts with ssh-ed25519, ssh-rsa or ecdsa-…). Use the .pub file, never the private key.',
      ),
    );
  const existing = (await d.sshKeys.list()).find((k) => keyFingerprintPart(k.public_key) === keyFingerprintPart(publicKey));
  if (existing) return { value: existing, notice: info(l10n.t('GPU Rental: that SSH key is already on the account.')) };
  const key = await d.sshKeys.create(publicKey);
  return {
    value: key,
    notice: info(
      l10n.t('GPU Rental: SSH key added. New instances accept it; attach it to existing ones with "Attach SSH Key to Instance".'),
    ),
  };
}

/** A key's row: its comment (or its id), then its type and the end of its body. */
function pickKey(ask: Ask, keys: readonly SshKey[], title: string): Promise<SshKey | undefined> {
  return ask.pick({
    title,
    items: keys.map((k) => {
      const [type = '', body = '', ...comment] = k.public_key.split(/\s+/);
      return { label: comment.join(' ') || l10n.t('key {0}', k.id), description: `${type} …${body.slice(-12)}`, value: k };
    }),
  });
}

/** Deletes a key from the account after a confirmation; resolves true when deleted. */
export async function deleteSshKey(d: SshKeyFlowDeps, given?: SshKey | number): Promise<Outcome<boolean>> {
  const keys = typeof given === 'object' ? [] : await d.sshKeys.list();
  const key =
    typeof given === 'object'
      ? given
      : given !== undefined
        ? keys.find((k) => k.id === given)
        : await pickKey(d.ask, keys, l10n.t('GPU Rental: Delete which SSH key?'));
  if (!key) return { value: false };
  const ok = await d.ask.confirm(
    l10n.t('Delete this SSH key from the account?'),
    l10n.t(
      '{0}…\nNew instances will not accept it. Instances that already carry it keep it until you detach it.',
      key.public_key.slice(0, 60),
    ),
    l10n.t('Delete Key'),
  );
  if (!ok) return { value: false };
  await d.sshKeys.delete(key.id);
  return { value: true };
}

/** Attaches one of the account's keys (by id, or picked) to an instance; resolves true when attached. */
export async function attachSshKey(d: SshKeyFlowDeps, instanceId: number, keyId?: number): Promise<Outcome<boolean>> {
  const keys = await d.sshKeys.list();
  const key =
    keyId !== undefined
      ? keys.find((k) => k.id === keyId)
      : await pickKey(d.ask, keys, l10n.t('GPU Rental: Attach which SSH key to #{0}?', instanceId));
  if (!key) return { value: false };
  await d.sshKeys.attach(instanceId, key.public_key);
  return { value: true, notice: info(l10n.t('GPU Rental: instance #{0} now accepts that SSH key.', instanceId)) };
}

/** Detaches one of an instance's keys (by id, or picked) after a confirmation; resolves true when detached. */
export async function detachSshKey(d: SshKeyFlowDeps, instanceId: number, keyId?: number): Promise<Outcome<boolean>> {
  const keys = await d.sshKeys.listForInstance(instanceId);
  const key =
    keyId !== undefined
      ? keys.find((k) => k.id === keyId)
      : await pickKey(d.ask, keys, l10n.t('GPU Rental: Detach which SSH key from #{0}?', instanceId));
  if (!key) return { value: false };
  const ok = await d.ask.confirm(
    l10n.t('Detach this SSH key from instance #{0}?', instanceId),
    l10n.t('Logins with it are refused from now on (a session already open stays open).'),
    l10n.t('Detach'),
  );
  if (!ok) return { value: false };
  await d.sshKeys.detach(instanceId, key.id);
  return { value: true };
}
