import assert from 'node:assert/strict';
import { EnvironmentKey } from '../../../src/core/session/environmentKey';
import type { SessionState } from '../../../src/core/session/session';
import { StoredState } from '../../../src/core/state/storedState';
import { STORED } from '../../../src/core/stored';
import { MemoryLogger } from '../../support';

const URL = 'https://api.example.test';
const ENV_KEY = 'env-key-0123456789abcdef';

function setup(options: { env?: string; profileId?: string; state?: SessionState['kind'] } = {}) {
  const stored = new Map<string, unknown>();
  const state = new StoredState(STORED, { get: (k) => stored.get(k), update: async (k, v) => void stored.set(k, v) });
  const keys = new Map<string, string>();
  const logger = new MemoryLogger();
  const session = {
    state: { kind: options.state ?? 'noKey' } as SessionState,
    profileId: options.profileId ?? 'default',
    normalizedBaseUrl: URL as string | undefined,
    baseUrl: URL,
  };
  const envKey = new EnvironmentKey({
    environmentKey: () => ('env' in options ? options.env : ENV_KEY),
    session,
    keys: { get: async (slot) => keys.get(slot), store: async (slot, key) => void keys.set(slot, key) },
    state,
    logger,
  });
  return { envKey, keys, state, logger, session };
}

describe('environment key', () => {
  it('is imported for the default profile when no key is stored, and the log does not show it', async () => {
    const { envKey, keys, logger } = setup();
    await envKey.importKey();
    assert.equal(keys.get(URL), ENV_KEY);
    assert.deepEqual(logger.lines, [`info Imported the API key from GPU_RENTAL_API_KEY for ${URL}.`]);
  });

  it('never replaces a stored key', async () => {
    const { envKey, keys } = setup();
    keys.set(URL, 'stored');
    await envKey.importKey();
    assert.equal(keys.get(URL), 'stored');
  });

  it('is not imported into another profile, with a bad URL, or when empty', async () => {
    for (const options of [{ profileId: 'work' }, { state: 'badUrl' as const }, { env: '  ' }, { env: undefined }]) {
      const { envKey, keys } = setup(options);
      await envKey.importKey();
      assert.equal(keys.size, 0, JSON.stringify(options));
    }
  });

  it('after a sign-out it is not imported again for that service', async () => {
    const { envKey, keys, state } = setup();
    await envKey.rememberSignOut();
    await envKey.rememberSignOut();
    assert.deepEqual(state.get('signedOut'), [URL], 'remembered once');
    await envKey.importKey();
    assert.equal(keys.size, 0);
  });
});
