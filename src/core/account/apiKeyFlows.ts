/**
 * Create (scoped) and Delete of the account's API keys, as core flows. A new key's secret is shown
 * once, in a modal, and otherwise only returned to automation: never logged or stored here.
 */
import type { ApiKey, ApiKeysApi } from '../api/account';
import { isPermissionCategory, type PermissionCategory } from '../api/permissions';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import { boxProblem, boxValue, instanceIdBox } from '../numbers';
import type { Ask } from '../prompts';
import { scopedPermissions, scopeSummary } from './apiKeys';
import { info, refusal, type Outcome } from './notice';

export interface ApiKeyFlowDeps {
  readonly ask: Ask;
  readonly apiKeys: Pick<ApiKeysApi, 'list' | 'create' | 'delete'>;
  /** A pick of several permission categories, the read-only ones ticked; undefined when dismissed. */
  readonly pickCategories: (title: string, placeholder: string) => Promise<string[] | undefined>;
  /** Keeps the id of a key created here, by its secret's fingerprint (never the secret). */
  readonly remember: (secret: string, id: number) => Promise<void>;
  /** The id of the key GPU Rental is signed in with, when it is known. */
  readonly inUseId: () => number | undefined;
  readonly logger: Pick<Logger, 'info'>;
}

/** What automation (and the tests) may pass instead of answering the pickers. */
export interface NewKeySpec {
  name: string;
  categories: string[];
  instanceId?: number;
}

/** A new key (for automation), and what the user chose to do with its secret when it was shown. */
export interface CreatedKey {
  id: number;
  key: string;
  then?: 'copy' | 'signIn';
}

const readOnly = (c: string) => c.endsWith('_read') || c === 'misc';

/** Asks what the key may do, whether to hold it to one instance, and its name; undefined when cancelled. */
async function askSpec(d: ApiKeyFlowDeps): Promise<NewKeySpec | undefined> {
  const picked = await d.pickCategories(
    l10n.t('GPU Rental: New API Key (1/3): what may it do?'),
    l10n.t('Pick the permission categories; read-only ones are ticked'),
  );
  if (!picked?.length) return undefined;
  const categories = picked.filter(isPermissionCategory);
  let instanceId: number | undefined;
  if (categories.some((c) => c.startsWith('instance_'))) {
    const only = await d.ask.input({
      title: l10n.t('GPU Rental: New API Key (2/3): limit to one instance?'),
      prompt: l10n.t('An instance id: its instance permissions then reach only that instance. Leave empty for all instances.'),
      validate: (v) => (v.trim() === '' ? undefined : boxProblem(v, instanceIdBox())),
    });
    if (only === undefined || (only.trim() && boxProblem(only, instanceIdBox()))) return undefined;
    instanceId = only.trim() ? boxValue(only, instanceIdBox()) : undefined;
  }
  const typed = await d.ask.input({
    title: l10n.t('GPU Rental: New API Key (3/3): name'),
    prompt: '',
    value: `vscode-${categories.every(readOnly) ? 'read-only' : 'scoped'}`,
    validate: (v) => (v.trim() ? undefined : l10n.t('Give the key a name.')),
  });
  if (!typed?.trim()) return undefined;
  return { name: typed.trim(), categories, instanceId };
}

/** Creates a scoped key (asked, unless given), then shows its secret once (only when asked); undefined when cancelled. */
export async function createApiKey(d: ApiKeyFlowDeps, given?: NewKeySpec): Promise<Outcome<CreatedKey | undefined>> {
  const spec = given ?? (await askSpec(d));
  if (!spec) return { value: undefined };
  const categories: PermissionCategory[] = spec.categories.filter(isPermissionCategory);
  if (categories.length === 0) throw new Error(l10n.t('Pick at least one permission category for the key.'));
  const { name, instanceId } = spec;
  const created = await d.apiKeys.create({ name, permissions: scopedPermissions(categories, instanceId) });
  await d.remember(created.key, created.id);
  d.logger.info(`Created API key ${created.id} "${name}" (${categories.join(', ')}${instanceId ? `, instance ${instanceId} only` : ''}).`);
  const value: CreatedKey = { id: created.id, key: created.key };
  if (!given) value.then = await revealOnce(d.ask, name, created.key);
  return { value };
}

/** Shows a new key's secret once, with Copy Key and Sign In With It. */
async function revealOnce(ask: Ask, name: string, secret: string): Promise<CreatedKey['then']> {
  const copy = l10n.t('Copy Key');
  const signIn = l10n.t('Sign In With It');
  const choice = await ask.choose(l10n.t('GPU Rental: API key "{0}" was created. Copy it now: it will not be shown again.', name), secret, [
    copy,
    signIn,
  ]);
  return choice === copy ? 'copy' : choice === signIn ? 'signIn' : undefined;
}

const keyName = (k: ApiKey) => k.name || k.id;

/** The key given (a row's), by id, or picked from the account's. */
async function keyOf(d: ApiKeyFlowDeps, given: ApiKey | number | undefined): Promise<ApiKey | undefined> {
  if (typeof given === 'object') return given;
  const keys = await d.apiKeys.list();
  if (typeof given === 'number') return keys.find((k) => k.id === given);
  return d.ask.pick({
    title: l10n.t('GPU Rental: Delete which API key?'),
    items: keys.map((k) => ({ label: k.name || l10n.t('key {0}', k.id), description: `${scopeSummary(k)} · id ${k.id}`, value: k })),
  });
}

/** Deletes (revokes) a key after a confirmation; never the key GPU Rental is signed in with. Resolves true when deleted. */
export async function deleteApiKey(d: ApiKeyFlowDeps, given?: ApiKey | number): Promise<Outcome<boolean>> {
  const key = await keyOf(d, given);
  if (!key) return { value: false };
  const inUse = d.inUseId();
  if (key.id === inUse)
    return {
      value: false,
      notice: refusal(
        l10n.t(
          'GPU Rental: "{0}" is the key GPU Rental is signed in with, so it is not deleted here. Sign in with another key first.',
          keyName(key),
        ),
      ),
    };
  const maybeOurs = inUse === undefined && !key.rights;
  const ok = await d.ask.confirm(
    l10n.t('Delete API key "{0}"?', keyName(key)),
    maybeOurs
      ? l10n.t(
          'Anything using it ({0}) stops working at once. This cannot be undone. If it is the key GPU Rental is signed in with, GPU Rental will be signed out.',
          scopeSummary(key),
        )
      : l10n.t('Anything using it ({0}) stops working at once. This cannot be undone.', scopeSummary(key)),
    l10n.t('Delete Key'),
  );
  if (!ok) return { value: false };
  await d.apiKeys.delete(key.id);
  return { value: true, notice: info(l10n.t('GPU Rental: deleted API key "{0}".', keyName(key))) };
}
