import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import * as vscode from 'vscode';
import type { ApiKey, SshKey } from '../../core/api/account';
import { PERMISSION_CATEGORIES, isPermissionCategory, type PermissionCategory } from '../../core/api/permissions';
import { scopedPermissions, scopeSummary, secretFingerprint } from '../../core/account/apiKeys';
import { COMMANDS, VIEWS } from '../../core/ids';
import { generateKey, keyFingerprintPart, newKeyPath } from '../../core/ssh/localKeys';
import type { Services } from '../services';
import { BILLING_DAYS, readBilling } from '../../core/billing/read';
import { ApiKeyItem, SshKeyItem } from '../views/account/keyItems';
import { billingReport } from '../../core/billing/report';
import { guarded } from './errors';
import { resolveTarget, type Target } from './instances';

const CREATED_KEYS = 'gpuRental.createdApiKeys';

/** What automation (and the tests) may pass instead of answering the pickers. */
interface NewKeySpec {
  name: string;
  categories: string[];
  instanceId?: number;
}

/** API keys and SSH keys: create, delete, attach, detach; each from the Account view or the palette. */
export function registerKeyCommands(s: Services): vscode.Disposable[] {
  s.accountView.ownKeyId = (fp) => createdKeys(s)[fp];
  const guard = guarded(s);
  return [
    vscode.commands.registerCommand(COMMANDS.showAccount, () => vscode.commands.executeCommand(`${VIEWS.account}.focus`)),
    vscode.commands.registerCommand(
      COMMANDS.showBilling,
      guard(() => showBilling(s)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.createApiKey,
      guard((spec?: NewKeySpec) => createApiKey(s, spec)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.deleteApiKey,
      guard((t?: ApiKeyItem | number) => deleteApiKey(s, t)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.addSshKey,
      guard((publicKey?: string) => addSshKey(s, publicKey)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.deleteSshKey,
      guard((t?: SshKeyItem | number) => deleteSshKey(s, t)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.attachSshKey,
      guard((t?: Target, keyId?: number) => attachSshKey(s, t, keyId)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.detachSshKey,
      guard((t?: Target, keyId?: number) => detachSshKey(s, t, keyId)),
    ),
  ];
}

/** The billing report as a Markdown document (untitled, nothing written to disk); resolves with its text. */
async function showBilling(s: Services): Promise<string> {
  const { charges, invoices, from, to } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'GPU Rental: reading billing…' },
    () => readBilling(s.session, BILLING_DAYS),
  );
  const text = billingReport(charges, invoices, { from, to }, new Date());
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
  await vscode.window.showTextDocument(doc, { preview: true });
  return text;
}

function createdKeys(s: Services): Record<string, number> {
  const all = s.context.globalState.get<Record<string, Record<string, number>>>(CREATED_KEYS, {});
  return all[s.session.normalizedBaseUrl ?? s.session.baseUrl] ?? {};
}

async function rememberCreated(s: Services, secret: string, id: number): Promise<void> {
  const base = s.session.normalizedBaseUrl ?? s.session.baseUrl;
  const all = { ...s.context.globalState.get<Record<string, Record<string, number>>>(CREATED_KEYS, {}) };
  all[base] = { ...all[base], [secretFingerprint(secret)]: id };
  await s.context.globalState.update(CREATED_KEYS, all);
}

/** Resolves with the new key's id and secret (for automation), or undefined when cancelled. */
async function createApiKey(s: Services, spec: NewKeySpec | undefined): Promise<{ id: number; key: string } | undefined> {
  let categories: PermissionCategory[];
  let instanceId: number | undefined;
  let name: string;
  if (spec) {
    categories = spec.categories.filter(isPermissionCategory);
    instanceId = spec.instanceId;
    name = spec.name;
  } else {
    const picked = await vscode.window.showQuickPick(
      Object.entries(PERMISSION_CATEGORIES).map(([c, what]) => ({
        label: c,
        description: what,
        picked: c.endsWith('_read') || c === 'misc',
      })),
      {
        title: 'GPU Rental: New API Key (1/3): what may it do?',
        canPickMany: true,
        placeHolder: 'Pick the permission categories; read-only ones are ticked',
      },
    );
    if (!picked?.length) return undefined;
    categories = picked.map((p) => p.label).filter(isPermissionCategory);
    if (categories.some((c) => c.startsWith('instance_'))) {
      const only = await vscode.window.showInputBox({
        title: 'GPU Rental: New API Key (2/3): limit to one instance?',
        prompt: 'An instance id: its instance permissions then reach only that instance. Leave empty for all instances.',
        validateInput: (v) => (v.trim() === '' || /^\d+$/.test(v.trim()) ? undefined : 'An instance id is a number.'),
      });
      if (only === undefined) return undefined;
      instanceId = only.trim() ? Number(only.trim()) : undefined;
    }
    const typed = await vscode.window.showInputBox({
      title: 'GPU Rental: New API Key (3/3): name',
      value: `vscode-${categories.every((c) => c.endsWith('_read') || c === 'misc') ? 'read-only' : 'scoped'}`,
      validateInput: (v) => (v.trim() ? undefined : 'Give the key a name.'),
    });
    if (typed === undefined) return undefined;
    name = typed.trim();
  }
  if (categories.length === 0) throw new Error('Pick at least one permission category for the key.');
  const created = await s.session.client.apiKeys.create({ name, permissions: scopedPermissions(categories, instanceId) });
  await rememberCreated(s, created.key, created.id);
  s.accountView.refresh();
  s.logger.info(`Created API key ${created.id} "${name}" (${categories.join(', ')}${instanceId ? `, instance ${instanceId} only` : ''}).`);
  if (!spec) await revealOnce(name, created.key);
  return { id: created.id, key: created.key };
}

/** Shows a new key's secret once, with Copy and Sign In With It; it is never logged or stored by us. */
async function revealOnce(name: string, secret: string): Promise<void> {
  const choice = await vscode.window.showWarningMessage(
    `GPU Rental: API key "${name}" was created. Copy it now: it will not be shown again.`,
    { modal: true, detail: secret },
    'Copy Key',
    'Sign In With It',
  );
  if (choice === 'Copy Key') await vscode.env.clipboard.writeText(secret);
  if (choice === 'Sign In With It') await vscode.commands.executeCommand(COMMANDS.setApiKey, secret);
}

async function pickApiKey(s: Services): Promise<ApiKey | undefined> {
  const keys = await s.session.client.apiKeys.list();
  const picked = await vscode.window.showQuickPick(
    keys.map((k) => ({ label: k.name || `key ${k.id}`, description: `${scopeSummary(k)} · id ${k.id}`, key: k })),
    { title: 'GPU Rental: Delete which API key?' },
  );
  return picked?.key;
}

async function deleteApiKey(s: Services, target: ApiKeyItem | number | undefined): Promise<boolean> {
  const key =
    target instanceof ApiKeyItem
      ? target.key
      : typeof target === 'number'
        ? (await s.session.client.apiKeys.list()).find((k) => k.id === target)
        : await pickApiKey(s);
  if (!key) return false;
  if (key.id === s.accountView.inUseId()) {
    void vscode.window.showErrorMessage(
      `GPU Rental: "${key.name || key.id}" is the key GPU Rental is signed in with, so it is not deleted here. Sign in with another key first.`,
    );
    return false;
  }
  const maybeOurs = s.accountView.inUseId() === undefined && !key.rights;
  const ok = await s.prompts.confirm(
    `Delete API key "${key.name || key.id}"?`,
    `Anything using it (${scopeSummary(key)}) stops working at once. This cannot be undone.${maybeOurs ? ' If it is the key GPU Rental is signed in with, GPU Rental will be signed out.' : ''}`,
    'Delete Key',
  );
  if (!ok) return false;
  await s.session.client.apiKeys.delete(key.id);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(`GPU Rental: deleted API key "${key.name || key.id}".`);
  return true;
}

/** Adds a public key to the account: given, from a .pub file, or newly generated. */
async function addSshKey(s: Services, given: string | undefined): Promise<SshKey | undefined> {
  let publicKey = given?.trim();
  if (!publicKey) {
    const how = await vscode.window.showQuickPick(
      [
        { label: '$(file) From a .pub file…', value: 'file' },
        { label: '$(add) Generate a new ed25519 key', description: 'in ~/.ssh, never overwriting a file', value: 'generate' },
        { label: '$(edit) Paste a public key…', value: 'paste' },
      ],
      { title: 'GPU Rental: Add an SSH key to the account' },
    );
    if (!how) return undefined;
    if (how.value === 'file') {
      const [file] =
        (await vscode.window.showOpenDialog({
          canSelectMany: false,
          filters: { 'Public keys': ['pub'] },
          title: 'The public half (.pub) of an SSH key',
        })) ?? [];
      if (!file) return undefined;
      publicKey = (await readFile(file.fsPath, 'utf8')).trim();
    } else if (how.value === 'generate') {
      publicKey = (await generateKey(await newKeyPath(), `gpu-rental@${hostname()}`)).publicKey;
    } else {
      publicKey = (
        await vscode.window.showInputBox({ title: 'GPU Rental: paste a public key', placeHolder: 'ssh-ed25519 AAAA… comment' })
      )?.trim();
    }
  }
  if (!publicKey) return undefined;
  if (!/^(ssh-|ecdsa-|sk-)\S+ \S+/.test(publicKey))
    throw new Error(
      'That is not an OpenSSH public key (it starts with ssh-ed25519, ssh-rsa or ecdsa-…). Use the .pub file, never the private key.',
    );
  const existing = (await s.session.client.sshKeys.list()).find((k) => keyFingerprintPart(k.public_key) === keyFingerprintPart(publicKey));
  if (existing) {
    void vscode.window.showInformationMessage('GPU Rental: that SSH key is already on the account.');
    return existing;
  }
  const key = await s.session.client.sshKeys.create(publicKey);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    'GPU Rental: SSH key added. New instances accept it; attach it to existing ones with "Attach SSH Key to Instance".',
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

async function deleteSshKey(s: Services, target: SshKeyItem | number | undefined): Promise<boolean> {
  const keys = target instanceof SshKeyItem ? [target.key] : await s.session.client.sshKeys.list();
  const key =
    target instanceof SshKeyItem
      ? target.key
      : typeof target === 'number'
        ? keys.find((k) => k.id === target)
        : await pickSshKey(keys, 'GPU Rental: Delete which SSH key?');
  if (!key) return false;
  const ok = await s.prompts.confirm(
    'Delete this SSH key from the account?',
    `${key.public_key.slice(0, 60)}…\nNew instances will not accept it. Instances that already carry it keep it until you detach it.`,
    'Delete Key',
  );
  if (!ok) return false;
  await s.session.client.sshKeys.delete(key.id);
  s.accountView.refresh();
  return true;
}

async function attachSshKey(s: Services, t: Target | undefined, keyId: number | undefined): Promise<boolean> {
  const instance = await resolveTarget(s, t, 'Attach an SSH key to which instance?', undefined);
  if (!instance) return false;
  const keys = await s.session.client.sshKeys.list();
  const key =
    keyId !== undefined ? keys.find((k) => k.id === keyId) : await pickSshKey(keys, `GPU Rental: Attach which SSH key to #${instance.id}?`);
  if (!key) return false;
  await s.session.client.sshKeys.attach(instance.id, key.public_key);
  void vscode.window.showInformationMessage(`GPU Rental: instance #${instance.id} now accepts that SSH key.`);
  return true;
}

async function detachSshKey(s: Services, t: Target | undefined, keyId: number | undefined): Promise<boolean> {
  const instance = await resolveTarget(s, t, 'Detach an SSH key from which instance?', undefined);
  if (!instance) return false;
  const keys = await s.session.client.sshKeys.listForInstance(instance.id);
  const key =
    keyId !== undefined
      ? keys.find((k) => k.id === keyId)
      : await pickSshKey(keys, `GPU Rental: Detach which SSH key from #${instance.id}?`);
  if (!key) return false;
  const ok = await s.prompts.confirm(
    `Detach this SSH key from instance #${instance.id}?`,
    'Logins with it are refused from now on (a session already open stays open).',
    'Detach',
  );
  if (!ok) return false;
  await s.session.client.sshKeys.detach(instance.id, key.id);
  return true;
}
