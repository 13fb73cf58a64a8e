import * as vscode from 'vscode';
import { PERMISSION_CATEGORIES } from '../../core/api/permissions';
import { createApiKey, deleteApiKey, type ApiKeyFlowDeps, type NewKeySpec } from '../../core/account/apiKeyFlows';
import { COMMANDS } from '../../core/ids';
import type { Logger } from '../../core/log';
import { secretFingerprint, type Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { asker, type Prompts } from '../pickers/prompts';
import type { AccountView } from '../views/account/accountView';
import { ApiKeyItem } from '../views/account/keyItems';
import { shownWith } from './accountDeps';
import { command, type CommandDefinition } from '../registry';

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

/** API keys: create (scoped), delete; from the Account view or the palette (decided in core/account/apiKeyFlows.ts). */
export function apiKeyCommands(s: ApiKeyDeps): CommandDefinition[] {
  const deps = (): ApiKeyFlowDeps => ({
    ask: asker(s.prompts()),
    apiKeys: s.session.client.apiKeys,
    pickCategories,
    remember: (secret, id) => rememberCreated(s, secret, id),
    inUseId: () => s.accountView.inUseId(),
    logger: s.logger,
  });
  const shown = shownWith(s);
  return [
    command(COMMANDS.createApiKey, async (spec?: NewKeySpec) => {
      const created = await shown(createApiKey(deps(), spec));
      if (created?.then === 'copy') await vscode.env.clipboard.writeText(created.key);
      if (created?.then === 'signIn') await vscode.commands.executeCommand(COMMANDS.setApiKey, created.key);
      return created && { id: created.id, key: created.key };
    }),
    command(COMMANDS.deleteApiKey, (t?: ApiKeyItem | number) => shown(deleteApiKey(deps(), t instanceof ApiKeyItem ? t.key : t))),
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

/** The permission categories in a pick of several (the port asks for one); the read-only ones ticked. */
async function pickCategories(title: string, placeHolder: string): Promise<string[] | undefined> {
  const picked = await vscode.window.showQuickPick(
    Object.entries(PERMISSION_CATEGORIES).map(([c, what]) => ({
      label: c,
      description: what,
      picked: c.endsWith('_read') || c === 'misc',
    })),
    { title, canPickMany: true, placeHolder },
  );
  return picked?.map((p) => p.label);
}
