import * as vscode from 'vscode';
import { PERMISSION_CATEGORIES, isPermissionCategory, type PermissionCategory } from '../../core/api/permissions';
import type { ApiKey } from '../../core/api/account';
import { scopedPermissions, scopeSummary } from '../../core/account/apiKeys';
import { COMMANDS } from '../../core/ids';
import { boxProblem, boxValue, instanceIdBox } from '../../core/numbers';
import type { Logger } from '../../core/log';
import { secretFingerprint, type Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import type { Prompts } from '../prompts';
import type { AccountView } from '../views/account/accountView';
import { ApiKeyItem } from '../views/account/keyItems';
import { command, type CommandDefinition } from './registry';

/** What automation (and the tests) may pass instead of answering the pickers. */
interface NewKeySpec {
  name: string;
  categories: string[];
  instanceId?: number;
}

/** What the API key commands use. */
export interface ApiKeyDeps {
  readonly session: Pick<Session, 'client' | 'normalizedBaseUrl' | 'baseUrl'>;
  readonly accountView: Pick<AccountView, 'refresh' | 'inUseId'>;
  /** Where the ids of keys created here are kept (never a secret). */
  readonly state: Pick<GpuRentalState, 'get' | 'change'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

/** API keys: create (scoped), delete; from the Account view or the palette. */
export function apiKeyCommands(s: ApiKeyDeps): CommandDefinition[] {
  return [
    command(COMMANDS.createApiKey, (spec?: NewKeySpec) => createApiKey(s, spec)),
    command(COMMANDS.deleteApiKey, (t?: ApiKeyItem | number) => deleteApiKey(s, t)),
  ];
}

/** The ids of the API keys created here for the session's service, by the fingerprint of their secret. */
export function createdKeyIds(s: Pick<ApiKeyDeps, 'session' | 'state'>): Record<string, number> {
  return s.state.get('createdApiKeys')[s.session.normalizedBaseUrl ?? s.session.baseUrl] ?? {};
}

async function rememberCreated(s: ApiKeyDeps, secret: string, id: number): Promise<void> {
  const base = s.session.normalizedBaseUrl ?? s.session.baseUrl;
  await s.state.change('createdApiKeys', (all) => ({ ...all, [base]: { ...all[base], [secretFingerprint(secret)]: id } }));
}

/** Resolves with the new key's id and secret (for automation), or undefined when cancelled. */
async function createApiKey(s: ApiKeyDeps, spec: NewKeySpec | undefined): Promise<{ id: number; key: string } | undefined> {
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
        title: vscode.l10n.t('GPU Rental: New API Key (1/3): what may it do?'),
        canPickMany: true,
        placeHolder: vscode.l10n.t('Pick the permission categories; read-only ones are ticked'),
      },
    );
    if (!picked?.length) return undefined;
    categories = picked.map((p) => p.label).filter(isPermissionCategory);
    if (categories.some((c) => c.startsWith('instance_'))) {
      const only = await vscode.window.showInputBox({
        title: vscode.l10n.t('GPU Rental: New API Key (2/3): limit to one instance?'),
        prompt: vscode.l10n.t('An instance id: its instance permissions then reach only that instance. Leave empty for all instances.'),
        validateInput: (v) => (v.trim() === '' ? undefined : boxProblem(v, instanceIdBox())),
      });
      if (only === undefined) return undefined;
      instanceId = only.trim() ? boxValue(only, instanceIdBox()) : undefined;
    }
    const typed = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: New API Key (3/3): name'),
      value: `vscode-${categories.every((c) => c.endsWith('_read') || c === 'misc') ? 'read-only' : 'scoped'}`,
      validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Give the key a name.')),
    });
    if (typed === undefined) return undefined;
    name = typed.trim();
  }
  if (categories.length === 0) throw new Error(vscode.l10n.t('Pick at least one permission category for the key.'));
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
    vscode.l10n.t('GPU Rental: API key "{0}" was created. Copy it now: it will not be shown again.', name),
    { modal: true, detail: secret },
    vscode.l10n.t('Copy Key'),
    vscode.l10n.t('Sign In With It'),
  );
  if (choice === vscode.l10n.t('Copy Key')) await vscode.env.clipboard.writeText(secret);
  if (choice === vscode.l10n.t('Sign In With It')) await vscode.commands.executeCommand(COMMANDS.setApiKey, secret);
}

async function pickApiKey(s: ApiKeyDeps): Promise<ApiKey | undefined> {
  const keys = await s.session.client.apiKeys.list();
  const picked = await vscode.window.showQuickPick(
    keys.map((k) => ({ label: k.name || `key ${k.id}`, description: `${scopeSummary(k)} · id ${k.id}`, key: k })),
    { title: vscode.l10n.t('GPU Rental: Delete which API key?') },
  );
  return picked?.key;
}

async function deleteApiKey(s: ApiKeyDeps, target: ApiKeyItem | number | undefined): Promise<boolean> {
  const key =
    target instanceof ApiKeyItem
      ? target.key
      : typeof target === 'number'
        ? (await s.session.client.apiKeys.list()).find((k) => k.id === target)
        : await pickApiKey(s);
  if (!key) return false;
  if (key.id === s.accountView.inUseId()) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'GPU Rental: "{0}" is the key GPU Rental is signed in with, so it is not deleted here. Sign in with another key first.',
        key.name || key.id,
      ),
    );
    return false;
  }
  const maybeOurs = s.accountView.inUseId() === undefined && !key.rights;
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Delete API key "{0}"?', key.name || key.id),
      maybeOurs
        ? vscode.l10n.t(
            'Anything using it ({0}) stops working at once. This cannot be undone. If it is the key GPU Rental is signed in with, GPU Rental will be signed out.',
            scopeSummary(key),
          )
        : vscode.l10n.t('Anything using it ({0}) stops working at once. This cannot be undone.', scopeSummary(key)),
      vscode.l10n.t('Delete Key'),
    );
  if (!ok) return false;
  await s.session.client.apiKeys.delete(key.id);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: deleted API key "{0}".', key.name || key.id));
  return true;
}
