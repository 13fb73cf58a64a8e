import assert from 'node:assert/strict';
import { permissionsFor } from '../../../src/core/api/permissions';
import { Emitter } from '../../../src/core/events';
import { Session, secretFingerprint, type KeyStore, type SessionState, type SessionStateKind } from '../../../src/core/session/session';
import { clientFor, DEMO_KEY, eventually, MemoryLogger, simulatorForSuite, startSimulator } from '../../support';

/** SecretStorage as the extension sees it: shared by "windows", with a change event. */
class MemoryKeyStore implements KeyStore {
  readonly keys = new Map<string, string>();
  private readonly changed = new Emitter<string>();
  readonly onDidChange = this.changed.event;
  async get(url: string) {
    return this.keys.get(url);
  }
  async store(url: string, key: string) {
    this.keys.set(url, key);
    this.changed.fire(url);
  }
  async delete(url: string) {
    this.keys.delete(url);
    this.changed.fire(url);
  }
}

/** Read through a function, so TypeScript does not keep an earlier assertion's narrowing. */
const kindOf = (session: Session): SessionStateKind => session.state.kind;

function newSession(url: string, keys: KeyStore, logger = new MemoryLogger()) {
  return new Session(url, {
    keys,
    logger,
    createClient: (baseUrl, getApiKey) => clientFor(baseUrl, undefined, { getApiKey, maxAttempts: 1 }).client,
  });
}

describe('session', () => {
  const sim = simulatorForSuite();

  it('starts without a key, then signs in with a good one and stores it', async () => {
    const keys = new MemoryKeyStore();
    const session = newSession(sim.url, keys);
    await session.start();
    assert.equal(kindOf(session), 'noKey');
    const user = await session.signIn(`  ${DEMO_KEY} `);
    assert.equal(user?.id, sim.accountId);
    assert.equal(keys.keys.get(sim.url), DEMO_KEY);
    const state = session.state as SessionState;
    assert.ok(state.kind === 'ready');
    assert.ok(state.user && (state.user.credit ?? 0) > 0);
  });

  it('fingerprints a secret one way, the same for the same key', () => {
    assert.equal(secretFingerprint(' abc '), secretFingerprint('abc'));
    assert.notEqual(secretFingerprint('abc'), secretFingerprint('abd'));
    assert.ok(!secretFingerprint('abc').includes('abc'));
  });

  it("a client made before a switch of service never sends the new service's key to the old host", async () => {
    const other = await startSimulator({ apiKey: 'other-service-key-77aa11bb' });
    try {
      const keys = new MemoryKeyStore();
      await keys.store(sim.url, DEMO_KEY);
      await keys.store(other.url, 'other-service-key-77aa11bb');
      const session = newSession(sim.url, keys);
      await session.start();
      const old = session.client;
      await session.setBaseUrl(other.url);
      assert.equal(kindOf(session), 'ready');
      await assert.rejects(old.account.currentUser(), /Nothing was sent: GPU Rental switched from/);
      assert.equal((await session.client.account.currentUser()).email !== undefined, true);
    } finally {
      await other.stop();
    }
  });

  it('refuses a key, sign-out or service change while the account is frozen (a rent is unsettled), naming why', async () => {
    const keys = new MemoryKeyStore();
    await keys.store(sim.url, DEMO_KEY);
    let reason: string | undefined = 'the rent of "x" is not settled yet';
    const session = new Session(sim.url, {
      keys,
      logger: new MemoryLogger(),
      frozen: () => reason,
      createClient: (baseUrl, getApiKey) => clientFor(baseUrl, undefined, { getApiKey, maxAttempts: 1 }).client,
    });
    await session.start();
    await assert.rejects(session.signIn(DEMO_KEY), /Not now: the rent of "x" is not settled yet/);
    await assert.rejects(session.signOut(), /Not now/);
    await assert.rejects(session.setBaseUrl('http://127.0.0.1:9'), /Not now/);
    await assert.rejects(session.setProfile('work', sim.url), /Not now/);
    assert.equal(keys.keys.get(sim.url), DEMO_KEY, 'the key is still there');
    reason = undefined;
    await session.signOut();
    assert.equal(keys.keys.get(sim.url), undefined);
  });

  it('a background account refresh updates the credit, and a failed one keeps the state as it was', async () => {
    const session = newSession(sim.url, new MemoryKeyStore());
    await session.start();
    await session.signIn(DEMO_KEY);
    const kinds: string[] = [];
    session.onDidChangeState((s) => kinds.push(s.kind));
    sim.control.addFault({ kind: 'server_error', status: 503, count: 5, path: '/users/current' });
    try {
      await session.refreshAccount();
    } finally {
      sim.control.clearFaults();
    }
    assert.equal(kindOf(session), 'ready', 'a blip does not make the session unreachable');
    assert.deepEqual(kinds, []);
    await session.refreshAccount();
    assert.deepEqual(kinds, ['ready']);
  });

  it('refuses a wrong key and does not store it', async () => {
    const keys = new MemoryKeyStore();
    const logger = new MemoryLogger();
    const session = newSession(sim.url, keys, logger);
    await session.start();
    await assert.rejects(session.signIn('wrong-key-123'), (e: Error & { kind?: string }) => e.kind === 'auth');
    assert.equal(keys.keys.size, 0);
    assert.equal(kindOf(session), 'noKey');
    assert.ok(!logger.lines.join('\n').includes('wrong-key-123'));
  });

  it('accepts a scoped key that may not read the account, without account details', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const scoped = await client.apiKeys.create({ name: 'offers only', permissions: permissionsFor(['misc']) });
    const session = newSession(sim.url, new MemoryKeyStore());
    await session.start();
    assert.equal(await session.signIn(scoped.key), undefined);
    assert.deepEqual(session.state, { kind: 'ready', user: undefined });
  });

  it('signs out, removing the stored key', async () => {
    const keys = new MemoryKeyStore();
    await keys.store(sim.url, DEMO_KEY);
    const session = newSession(sim.url, keys);
    await session.start();
    assert.equal(kindOf(session), 'ready');
    await session.signOut();
    assert.equal(kindOf(session), 'noKey');
    assert.equal(keys.keys.size, 0);
  });

  it('follows a key stored or removed by another window', async () => {
    const keys = new MemoryKeyStore();
    const a = newSession(sim.url, keys);
    const b = newSession(sim.url, keys);
    await Promise.all([a.start(), b.start()]);
    await a.signIn(DEMO_KEY);
    await eventually(async () => b.state.kind === 'ready', 'window b to sign in', 5_000);
    await a.signOut();
    await eventually(async () => b.state.kind === 'noKey', 'window b to sign out', 5_000);
  });

  it('shows a revoked key as rejected', async () => {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const temp = await client.apiKeys.create({ name: 'temp', permissions: permissionsFor(['user_read']) });
    const keys = new MemoryKeyStore();
    await keys.store(sim.url, temp.key);
    const session = newSession(sim.url, keys);
    await session.start();
    assert.equal(kindOf(session), 'ready');
    await client.apiKeys.delete(temp.id);
    await session.refresh();
    assert.equal(kindOf(session), 'rejected');
  });

  describe('refusals that are not a bad key', () => {
    afterEach(() => sim.control.setAccountQuirks(sim.accountId, { twoFactor: false, withhold: [] }));

    /** A signed-in session on `key`, and every state it passes through from then on. */
    async function signedIn(key: string) {
      const keys = new MemoryKeyStore();
      await keys.store(sim.url, key);
      const session = newSession(sim.url, keys);
      await session.start();
      assert.equal(kindOf(session), 'ready');
      const kinds: string[] = [];
      session.onDidChangeState((st) => kinds.push(st.kind));
      return { session, kinds };
    }

    const refused = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (error) {
        return error as Error & { kind?: string; reason?: string; status?: number };
      }
      assert.fail('expected a refusal');
    };

    it('a 401 for a missing permission (billing_read) leaves the session ready, with its account', async () => {
      const scoped = await clientFor(sim.url, DEMO_KEY).client.apiKeys.create({
        name: 'no billing',
        permissions: permissionsFor(['user_read', 'instance_read']),
      });
      const { session, kinds } = await signedIn(scoped.key);
      const error = await refused(session.client.billing.invoices({ from: 0, to: Math.floor(Date.now() / 1000) }));
      assert.deepEqual([error.status, error.kind, error.reason], [401, 'forbidden', 'permission']);
      session.reportError(error);
      await session.refresh();
      assert.equal(kindOf(session), 'ready');
      assert.equal((session.state as { user?: { id: number } }).user?.id, sim.accountId, 'the account is still shown');
      assert.deepEqual(kinds, ['ready'], 'never rejected, not even for a moment');
    });

    it('a two-factor refusal leaves the session ready', async () => {
      const { session, kinds } = await signedIn(DEMO_KEY);
      sim.control.setAccountQuirks(sim.accountId, { twoFactor: true });
      const error = await refused(session.client.apiKeys.create({ name: 'x', permissions: permissionsFor(['misc']) }));
      assert.deepEqual([error.status, error.kind, error.reason], [401, 'forbidden', 'two_factor']);
      session.reportError(error);
      await session.refresh();
      assert.equal(kindOf(session), 'ready');
      assert.deepEqual(kinds, ['ready']);
    });

    it('a key the service calls invalid on any endpoint still turns the session rejected', async () => {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const temp = await client.apiKeys.create({ name: 'doomed', permissions: permissionsFor(['user_read', 'billing_read']) });
      const { session } = await signedIn(temp.key);
      await client.apiKeys.delete(temp.id);
      const error = await refused(session.client.billing.invoices({ from: 0, to: Math.floor(Date.now() / 1000) }));
      assert.equal(error.kind, 'auth');
      session.reportError(error);
      assert.equal(kindOf(session), 'rejected');
    });

    it('an account record without credit or balance signs in, with the credit unknown', async () => {
      sim.control.setAccountQuirks(sim.accountId, { withhold: ['credit', 'balance'] });
      const { session } = await signedIn(DEMO_KEY);
      const user = (session.state as { user?: { id: number; credit?: number | null } }).user;
      assert.equal(user?.id, sim.accountId);
      assert.equal(user?.credit, undefined);
    });
  });

  it('keeps keys per base URL, so a key is never sent to another service', async () => {
    const other = await startSimulator({ apiKey: 'other-service-key-0001' });
    try {
      const keys = new MemoryKeyStore();
      await keys.store(sim.url, DEMO_KEY);
      const session = newSession(sim.url, keys);
      await session.start();
      assert.equal(kindOf(session), 'ready');
      const before = other.control.state().requestCount;
      await session.setBaseUrl(other.url);
      assert.equal(kindOf(session), 'noKey');
      assert.equal(other.control.state().requestCount, before, 'no request reached the other service');
      await session.setBaseUrl(sim.url);
      assert.equal(kindOf(session), 'ready');
    } finally {
      await other.stop();
    }
  });

  it('reports an unreachable service and recovers on refresh', async () => {
    const down = await startSimulator();
    const url = down.url;
    const keys = new MemoryKeyStore();
    await keys.store(url, DEMO_KEY);
    await down.stop();
    const session = newSession(url, keys);
    await session.start();
    assert.equal(kindOf(session), 'unreachable');
    const port = Number(new URL(url).port);
    const back = await startSimulator({ port });
    try {
      await session.refresh();
      assert.equal(kindOf(session), 'ready');
    } finally {
      await back.stop();
    }
  });

  it('explains a base URL that would send the key in the clear', async () => {
    const session = newSession('http://example.com', new MemoryKeyStore());
    await session.start();
    assert.equal(kindOf(session), 'badUrl');
    assert.match((session.state as { message: string }).message, /plain http/);
    assert.throws(() => session.client, /plain http/);
  });

  describe('profiles', () => {
    it('two profiles on one service keep their own keys and accounts, and switching passes through checking', async () => {
      const other = sim.control.addAccount({ email: 'second@example.com', credit: 7 });
      const keys = new MemoryKeyStore();
      const session = newSession(sim.url, keys);
      await session.start();
      await session.signIn(DEMO_KEY);
      await session.setProfile('work', sim.url);
      assert.equal(kindOf(session), 'noKey', 'the new profile has no key yet, the default one is not used');
      await session.signIn(other.key);
      assert.equal(keys.keys.get(sim.url), DEMO_KEY, 'the default slot is untouched');
      assert.equal(keys.keys.get(`${sim.url}#profile=work`), other.key);
      assert.equal((session.state as { user?: { email?: string } }).user?.email, 'second@example.com');

      const kinds: string[] = [];
      session.onDidChangeState((s) => kinds.push(s.kind));
      await session.setProfile('default', sim.url);
      assert.deepEqual(kinds, ['checking', 'ready'], 'the old account ends before the new one begins');
      assert.equal((session.state as { user?: { id: number } }).user?.id, sim.accountId);
      assert.equal(session.profileId, 'default');

      // Signing out of one profile leaves the other's key.
      await session.setProfile('work', sim.url);
      await session.signOut();
      assert.equal(keys.keys.get(`${sim.url}#profile=work`), undefined);
      assert.equal(keys.keys.get(sim.url), DEMO_KEY);
    });

    it("another window's change to a profile's key reaches only the session on that profile", async () => {
      const keys = new MemoryKeyStore();
      const a = newSession(sim.url, keys);
      const b = new Session(sim.url, {
        keys,
        logger: new MemoryLogger(),
        profileId: 'work',
        createClient: (baseUrl, getApiKey) => clientFor(baseUrl, undefined, { getApiKey, maxAttempts: 1 }).client,
      });
      await a.start();
      await b.start();
      await a.signIn(DEMO_KEY);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(kindOf(b), 'noKey', 'the default profile signing in does not sign in "work"');
      await keys.store(`${sim.url}#profile=work`, DEMO_KEY);
      await eventually(async () => kindOf(b) === 'ready', 'work signed in by the other window', 5_000);
    });
  });
});
