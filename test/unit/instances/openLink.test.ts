import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/api/errors';
import type { Instance } from '../../../src/core/api/instances';
import { openLink, type OpenLinkDeps } from '../../../src/core/instances/openLink';
import type { SessionState } from '../../../src/core/session/session';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { MemoryLogger } from '../../support';

const EXAMPLE = 'vscode://pub.gpu-rental/connect?instance=123';
const PROFILES = [
  { id: 'default', name: 'Default' },
  { id: 'work', name: 'Work' },
];

/** A window signed in to the default profile, with instance 7 listed; `show` answers for ids the list lacks. */
function world(answers: Answer[], state: SessionState = { kind: 'ready', user: { id: 1, email: 'me@example.com' } as never }) {
  const ask = scriptedAsk(answers);
  const switched: string[] = [];
  const listeners: Array<(s: SessionState) => void> = [];
  const session = {
    state,
    profileId: 'default',
    onDidChangeState: (l: (s: SessionState) => void) => (listeners.push(l), { dispose: () => undefined }),
    client: {
      instances: {
        show: (id: number) =>
          Promise.reject(
            new ApiError({ kind: 'not_found', action: `show instance ${id}`, method: 'GET', path: `/instances/${id}/`, status: 404 }),
          ),
      },
    },
  };
  const deps = {
    ask,
    session,
    poller: { snapshot: { instances: [{ id: 7 } as Instance], at: 0 }, refresh: () => Promise.resolve() },
    profiles: { list: () => PROFILES },
    switcher: { where: 'sim (Default)', switchProfile: (id: string) => (switched.push(id), Promise.resolve()) },
    logger: new MemoryLogger(),
    example: EXAMPLE,
  } as unknown as OpenLinkDeps;
  const settle = (s: SessionState) => {
    session.state = s;
    for (const l of listeners) l(s);
  };
  return { deps, ask, switched, settle };
}

describe('instances: opening a connect link', () => {
  it('refuses a link that is not a connect link, showing what one looks like, and asks nothing', async () => {
    const { deps } = world([]);
    const result = await openLink(deps, '/rent', 'instance=7');
    assert.equal(result.outcome, 'refused');
    assert.ok('level' in result && result.level === 'error');
    assert.match(result.detail, new RegExp(`^did not open the link: .*A link looks like ${EXAMPLE.replace(/[?.]/g, '\\$&')}\\.$`));
  });

  it('hands an instance of the account to Connect', async () => {
    const { deps } = world([]);
    assert.deepEqual(await openLink(deps, '/connect', 'instance=7&utm_source=chat'), { outcome: 'connect', instanceId: 7 });
  });

  it("asks before switching to the link's profile; declined switches nothing", async () => {
    const { deps, ask, switched } = world([{ confirm: false }]);
    const result = await openLink(deps, '/connect', 'instance=7&profile=work');
    assert.equal(result.outcome, 'declined');
    assert.deepEqual(switched, []);
    assert.equal(ask.asked[0]!.text, 'Switch to the profile "Work"?');
    assert.match(ask.asked[0]!.detail, /^The link opens instance #7 of the profile "Work"\. This window is signed in to sim \(Default\);/);
  });

  it('switches when the user agrees, then connects', async () => {
    const { deps, switched } = world([{ confirm: true }]);
    assert.deepEqual(await openLink(deps, '/connect', 'instance=7&profile=work'), { outcome: 'connect', instanceId: 7 });
    assert.deepEqual(switched, ['work']);
  });

  it('names the account it looked in when the instance is not there', async () => {
    const { deps } = world([]);
    const result = await openLink(deps, '/connect', 'instance=987654321');
    assert.equal(result.outcome, 'notFound');
    assert.match(
      result.outcome === 'notFound' ? result.detail : '',
      /^instance #987654321 was not found in the account me@example\.com on sim \(Default\)\./,
    );
  });

  it('says a signed-out window cannot open it, and what to do', async () => {
    const { deps } = world([], { kind: 'noKey' });
    const result = await openLink(deps, '/connect', 'instance=7');
    assert.equal(result.outcome, 'signedOut');
    assert.match(result.outcome === 'signedOut' ? result.detail : '', /Set an API key, then open the link again\.$/);
  });

  it('waits for the stored key to be checked before it looks (a link may start the editor)', async () => {
    const { deps, settle } = world([], { kind: 'checking' });
    const opening = openLink(deps, '/connect', 'instance=7');
    await new Promise((resolve) => setImmediate(resolve));
    settle({ kind: 'ready', user: undefined });
    assert.deepEqual(await opening, { outcome: 'connect', instanceId: 7 });
  });
});
