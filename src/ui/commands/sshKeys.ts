import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as vscode from 'vscode';
import type { SshKey } from '../../core/api/account';
import { COMMANDS } from '../../core/ids';
import { generateKey, keyFingerprintPart, newKeyPath } from '../../core/ssh/localKeys';
import { SshKeyItem } from '../views/account/keyItems';
import type { AccountAreaDeps } from './accountDeps';
import { resolveTarget, type Target, type TargetDeps } from './instances';
import { command, type CommandDefinition } from './registry';

/** What the SSH key commands use. */
export interface SshKeyDeps extends AccountAreaDeps, TargetDeps {}

/** SSH keys on the account and on instances: add, delete, attach, detach; from the Account view or the palette. */
export function sshKeyCommands(s: SshKeyDeps): CommandDefinition[] {
  return [
    command(COMMANDS.addSshKey, (publicKey?: string) => addSshKey(s, publicKey)),
    command(COMMANDS.deleteSshKey, (t?: SshKeyItem | number) => deleteSshKey(s, t)),
    command(COMMANDS.attachSshKey, (t?: Target, keyId?: number) => attachSshKey(s, t, keyId)),
    command(COMMANDS.detachSshKey, (t?: Target, keyId?: number) => detachSshKey(s, t, keyId)),
  ];
}

/** Adds a public key to the account: given, from a .pub file, or newly generated. */
async function addSshKey(s: SshKeyDeps, given: string | undefined): Promise<SshKey | undefined> {
  let publicKey = given?.trim();
  if (!publicKey) {
    const how = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('$(file) From a .pub file…'), value: 'file' },
        {
          label: vscode.l10n.t('$(add) Generate a new ed25519 key'),
          description: vscode.l10n.t('in ~/.ssh, never overwriting a file'),
          value: 'generate',
        },
        { label: vscode.l10n.t('$(edit) Paste a public key…'), value: 'paste' },
      ],
      { title: vscode.l10n.t('GPU Rental: Add an SSH key to the account') },
    );
    if (!how) return undefined;
    if (how.value === 'file') {
      const [file] =
        (await vscode.window.showOpenDialog({
          canSelectMany: false,
          filters: { 'Public keys': ['pub'] },
          title: vscode.l10n.t('The public half (.pub) of an SSH key'),
        })) ?? [];
      if (!file) return undefined;
      publicKey = (await readFile(file.fsPath, 'utf8')).trim();
    } else if (how.value === 'generate') {
      publicKey = (await generateKey(await newKeyPath(), `gpu-rental@${hostname()}`)).publicKey;
    } else {
      publicKey = (
        await vscode.window.showInputBox({
          title: vscode.l10n.t('GPU Rental: paste a public key'),
          placeHolder: vscode.l10n.t('ssh-ed25519 AAAA… comment'),
        })
      )?.trim();
    }
  }
  if (!publicKey) return undefined;
  if (!/^(ssh-|ecdsa-|sk-)\S+ \S+/.test(publicKey))
    throw new Error(
      vscode.l10n.t(
        'That is not an OpenSSH public key (it starts with ssh-ed25519, ssh-rsa or ecdsa-…). Use the .pub file, never the private key.',
      ),
    );
  const existing = (await s.session.client.sshKeys.list()).find((k) => keyFingerprintPart(k.public_key) === keyFingerprintPart(publicKey));
  if (existing) {
    void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: that SSH key is already on the account.'));
    return existing;
  }
  const key = await s.session.client.sshKeys.create(publicKey);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    vscode.l10n.t('GPU Rental: SSH key added. New instances accept it; attach it to existing ones with "Attach SSH Key to Instance".'),
  );
  return key;
}

async function pickSshKey(keys: SshKey[], title: string): Promise<SshKey | undefined> {
  const picked = await vscode.window.showQuickPick(
    keys.map((k) => ({
      label: k.public_key.split(/\s+/).slice(2).join(' ') || `key ${k.id}`,
      description: `${k.public_key.split(/\s+/)[0] ?? ''} …${(k.public_key.split(/\s+/)[1] ?? '').slice(-12)}`,
      key: k,
    })),
    { title },
  );
  return picked?.key;
}

async function deleteSshKey(s: SshKeyDeps, target: SshKeyItem | number | undefined): Promise<boolean> {
  const keys = target instanceof SshKeyItem ? [target.key] : await s.session.client.sshKeys.list();
  const key =
    target instanceof SshKeyItem
      ? target.key
      : typeof target === 'number'
        ? keys.find((k) => k.id === target)
        : await pickSshKey(keys, vscode.l10n.t('GPU Rental: Delete which SSH key?'));
  if (!key) return false;
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Delete this SSH key from the account?'),
      vscode.l10n.t(
        '{0}…\nNew instances will not accept it. Instances that already carry it keep it until you detach it.',
        key.public_key.slice(0, 60),
      ),
      vscode.l10n.t('Delete Key'),
    );
  if (!ok) return false;
  await s.session.client.sshKeys.delete(key.id);
  s.accountView.refresh();
  return true;
}

async function attachSshKey(s: SshKeyDeps, t: Target | undefined, keyId: number | undefined): Promise<boolean> {
  const instance = await resolveTarget(s, t, vscode.l10n.t('Attach an SSH key to which instance?'), undefined);
  if (!instance) return false;
  const keys = await s.session.client.sshKeys.list();
  const key =
    keyId !== undefined
      ? keys.find((k) => k.id === keyId)
      : await pickSshKey(keys, vscode.l10n.t('GPU Rental: Attach which SSH key to #{0}?', instance.id));
  if (!key) return false;
  await s.session.client.sshKeys.attach(instance.id, key.public_key);
  void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: instance #{0} now accepts that SSH key.', instance.id));
  return true;
}

async function detachSshKey(s: SshKeyDeps, t: Target | undefined, keyId: number | undefined): Promise<boolean> {
  const instance = await resolveTarget(s, t, vscode.l10n.t('Detach an SSH key from which instance?'), undefined);
  if (!instance) return false;
  const keys = await s.session.client.sshKeys.listForInstance(instance.id);
  const key =
    keyId !== undefined
      ? keys.find((k) => k.id === keyId)
      : await pickSshKey(keys, vscode.l10n.t('GPU Rental: Detach which SSH key from #{0}?', instance.id));
  if (!key) return false;
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Detach this SSH key from instance #{0}?', instance.id),
      vscode.l10n.t('Logins with it are refused from now on (a session already open stays open).'),
      vscode.l10n.t('Detach'),
    );
  if (!ok) return false;
  await s.session.client.sshKeys.detach(instance.id, key.id);
  return true;
}
