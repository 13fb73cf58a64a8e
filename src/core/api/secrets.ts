import * as z from 'zod';
import { anyOk, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/**
 * The list answers `{"secrets": {"NAME": "value", …}}` with every value in clear (the official CLI
 * masks them itself). Only the names are kept: the values are dropped here, at the parse, so they
 * never reach a tree item, a log line, an error or the test API. An older or odd shape (a list of
 * names, or of `{key}` records) is read as far as its names; a name that is not text is left out.
 */
const SecretNamesSchema = z.unknown().transform((input, ctx): string[] => {
  const inner =
    typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>)['secrets'] : input;
  if (inner === null || inner === undefined) return [];
  let names: unknown[];
  if (Array.isArray(inner)) names = inner.map((e) => (typeof e === 'object' && e !== null ? (e as Record<string, unknown>)['key'] : e));
  else if (typeof inner === 'object') names = Object.keys(inner);
  else {
    // The issue names the expected shape and never the body, which may hold values.
    ctx.issues.push({ code: 'custom', message: l10n.t('expected {secrets: {NAME: value}}'), input: undefined, path: ['secrets'] });
    return z.NEVER;
  }
  return [...new Set(names.filter((n): n is string => typeof n === 'string' && n !== ''))].sort();
});

/**
 * The account's environment variables (`/api/v0/secrets/`), which the service adds to every new
 * instance. Names only come back; a value is sent, never read. Each value is passed to the
 * transport as a secret, so an answer that echoes it has it taken out of every message.
 */
export class SecretsApi {
  constructor(private readonly t: Transport) {}

  /** The names of the account's variables, sorted; their values are never kept. */
  list(o: RequestOptions = {}): Promise<string[]> {
    return this.t.send({
      action: l10n.t('list environment variables'),
      method: 'GET',
      path: '/api/v0/secrets/',
      schema: SecretNamesSchema,
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
  }

  /** Adds a variable; the service upper-cases the name and refuses one that exists (`existing_key`). */
  create(name: string, value: string, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('add environment variable {0}', name),
      method: 'POST',
      path: '/api/v0/secrets/',
      body: { key: name, value },
      secrets: [value],
      schema: anyOk,
      permission: 'user_write',
      // A create that may have been done is not repeated: a second one would answer existing_key.
      retry: 'write',
      ...o,
    });
  }

  /** Replaces the value of a variable that exists (`nonexistent_key` otherwise). Setting a value twice is harmless. */
  update(name: string, value: string, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('change environment variable {0}', name),
      method: 'PUT',
      path: '/api/v0/secrets/',
      body: { key: name, value },
      secrets: [value],
      schema: anyOk,
      permission: 'user_write',
      retry: 'read',
      ...o,
    });
  }

  delete(name: string, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('delete environment variable {0}', name),
      method: 'DELETE',
      path: '/api/v0/secrets/',
      body: { key: name },
      schema: anyOk,
      permission: 'user_write',
      retry: 'write',
      ...o,
    });
  }
}
