import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as vscode from 'vscode';
import { addSshKey, attachSshKey, deleteSshKey, detachSshKey, type SshKeyFlowDeps } from '../../core/account/sshKeyFlows';
import { COMMANDS } from '../../core/ids';
import { generateKey, newKeyPath } from '../../core/ssh/localKeys';
import { asker } from '../pickers/prompts';
import { SshKeyItem } from '../views/account/keyItems';
import { shownWith, type AccountAreaDeps } from './accountDeps';
import { resolveTarget, type Target, type TargetDeps } from './instances';
import { command, type CommandDefinition } from '../registry';

/** What the SSH key commands use. */
export interface SshKeyDeps extends AccountAreaDeps, TargetDeps {}

/**
 * SSH keys on the account and on instances: add, delete, attach, detach; from the Account view or
 * the palette (decided in core/account/sshKeyFlows.ts).
 */
export function sshKeyCommands(s: SshKeyDeps): CommandDefinition[] {
  const deps = (): SshKeyFlowDeps => ({
    ask: asker(s.prompts()),
    sshKeys: s.session.client.sshKeys,
    readPublicKeyFile,
    generateKey: async () => (await generateKey(await newKeyPath(), `gpu-rental@${hostname()}`)).publicKey,
  });
  const shown = shownWith(s);
  const instance = async (t: Target | undefined, title: string) => (await resolveTarget(s, t, title, undefined))?.id;
  return [
    command(COMMANDS.addSshKey, (publicKey?: string) => shown(addSshKey(deps(), publicKey))),
    command(COMMANDS.deleteSshKey, (t?: SshKeyItem | number) => shown(deleteSshKey(deps(), t instanceof SshKeyItem ? t.key : t))),
    command(COMMANDS.attachSshKey, async (t?: Target, keyId?: number) => {
      const id = await instance(t, vscode.l10n.t('Attach an SSH key to which instance?'));
      return id !== undefined && shown(attachSshKey(deps(), id, keyId));
    }),
    command(COMMANDS.detachSshKey, async (t?: Target, keyId?: number) => {
      const id = await instance(t, vscode.l10n.t('Detach an SSH key from which instance?'));
      return id !== undefined && shown(detachSshKey(deps(), id, keyId));
    }),
  ];
}

/** The text of the .pub file the user opens; undefined when dismissed. */
async function readPublicKeyFile(): Promise<string | undefined> {
  const [file] =
    (await vscode.window.showOpenDialog({
      canSelectMany: false,
      filters: { 'Public keys': ['pub'] },
      title: vscode.l10n.t('The public half (.pub) of an SSH key'),
    })) ?? [];
  return file ? (await readFile(file.fsPath, 'utf8')).trim() : undefined;
}
