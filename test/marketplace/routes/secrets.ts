/**
 * The account's environment variables ("secrets"), `/api/v0/secrets/`: list (user_read), create,
 * update and delete (user_write). Names are stored upper-cased; values are kept as given and the
 * list returns them in clear, as the service does (the CLI hides them itself unless asked with -s).
 * Errors are 400s in the usual shape, with the codes the service documents for each method.
 */
import type { SecretRecord } from '../model';
import { fail, ok, type Ctx, type RouteDef, saved } from '../router';

/** How many variables one account may hold (the service has a limit; its number is not published). */
export const MAX_SECRETS = 100;
/** Longest value accepted, in characters (the service answers input_too_long past its own limit). */
export const MAX_SECRET_VALUE = 4096;

/** Name form the service documents for update: a letter or underscore, then word characters. */
const NAME = /^[A-Za-z_]\w*$/;
/** Value form the service documents for create. */
const CREATE_VALUE = /^[A-Za-z0-9_.-]+$/;

function secretsOf(ctx: Ctx): SecretRecord[] {
  const store = ctx.sim.store.data;
  store.secrets ??= [];
  return store.secrets;
}

/** The caller's variables. */
function mine(ctx: Ctx): SecretRecord[] {
  return secretsOf(ctx).filter((s) => s.accountId === ctx.account.id);
}

function find(ctx: Ctx, name: string): SecretRecord | undefined {
  return mine(ctx).find((s) => s.key === name);
}

/** The caller's variable named `name`; the service's 400 when there is none. */
function existing(ctx: Ctx, name: string): SecretRecord {
  const record = find(ctx, name);
  if (!record) throw fail(400, 'nonexistent_key', `There is no variable named ${name}.`);
  return record;
}

type Use = 'create' | 'update' | 'delete';

/** The `key` of the body, upper-cased, after the checks every method shares. */
function nameOf(ctx: Ctx, use: Use): string {
  const { key, value } = ctx.body;
  const needValue = use !== 'delete';
  if (typeof key !== 'string' || (needValue && typeof value !== 'string')) {
    throw fail(
      400,
      'missing_input',
      needValue ? "Both 'key' and 'value' must be given, as strings." : "The 'key' to delete must be given, as a string.",
    );
  }
  if (key.trim() === '') throw fail(400, use === 'update' ? 'empty_input' : 'missing_input', "The 'key' is empty.");
  if (!NAME.test(key))
    throw fail(
      400,
      'invalid_characters',
      `'${key.slice(0, 64)}' is not a valid variable name: use letters, digits and underscores, not starting with a digit.`,
    );
  return key.toUpperCase();
}

function valueOf(ctx: Ctx, use: Use): string {
  const value = ctx.body.value as string;
  const create = use === 'create';
  if (value === '') throw fail(400, create ? 'missing_input' : 'empty_input', "The 'value' is empty.");
  if (value.length > MAX_SECRET_VALUE)
    throw fail(400, 'input_too_long', `The value has ${value.length} characters; at most ${MAX_SECRET_VALUE} are kept.`);
  if (create && !CREATE_VALUE.test(value))
    throw fail(400, 'invalid_characters', 'A value may hold only letters, digits, underscores, dots and hyphens.');
  return value;
}

export const secretRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/secrets',
    category: 'user_read',
    action: 'api.secrets.show',
    handler: (ctx) => {
      return ok({ success: true, secrets: Object.fromEntries(mine(ctx).map((s) => [s.key, s.value])) });
    },
  },
  {
    method: 'POST',
    path: '/api/v0/secrets',
    category: 'user_write',
    action: 'api.secrets.create',
    handler: (ctx) => {
      const name = nameOf(ctx, 'create');
      const value = valueOf(ctx, 'create');
      if (find(ctx, name)) throw fail(400, 'existing_key', `A variable named ${name} exists already; update it instead.`);
      const count = mine(ctx).length;
      if (count >= MAX_SECRETS)
        throw fail(400, 'max_secrets', `This account has ${count} variables, the most it may hold; delete one first.`);
      secretsOf(ctx).push({ accountId: ctx.account.id, key: name, value, createdAt: ctx.now, updatedAt: ctx.now });
      return saved(ctx.sim.store, { success: true, msg: `Environment variable ${name} added.` });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/secrets',
    category: 'user_write',
    action: 'api.secrets.update',
    handler: (ctx) => {
      const name = nameOf(ctx, 'update');
      const value = valueOf(ctx, 'update');
      const record = existing(ctx, name);
      record.value = value;
      record.updatedAt = ctx.now;
      return saved(ctx.sim.store, { success: true, msg: `Environment variable ${name} updated.` });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v0/secrets',
    category: 'user_write',
    action: 'api.secrets.delete',
    handler: (ctx) => {
      const name = nameOf(ctx, 'delete');
      const all = secretsOf(ctx);
      all.splice(all.indexOf(existing(ctx, name)), 1);
      return saved(ctx.sim.store, { success: true, msg: `Environment variable ${name} deleted.` });
    },
  },
];
