import assert from 'node:assert/strict';
import { errorActions } from '../../../src/core/api/errorPolicy';
import { ApiError, type ApiErrorDetails } from '../../../src/core/api/errors';

const refusal = (details: Partial<ApiErrorDetails> & Pick<ApiErrorDetails, 'kind'>) =>
  new ApiError({ action: 'list instances', method: 'GET', path: '/api/v0/instances/', status: 403, ...details });

describe('error policy', () => {
  it('a rejected key signs the window out and offers a new key or the log', () => {
    for (const profiles of [1, 3]) {
      assert.deepEqual(errorActions(refusal({ kind: 'auth', status: 401 }), { profiles }), {
        signOut: true,
        actions: ['Set API Key', 'Show Logs'],
      });
    }
  });

  it('a missing permission keeps the session and leads to another key', () => {
    const error = refusal({ kind: 'forbidden', reason: 'permission', permission: 'instance_write' });
    assert.deepEqual(errorActions(error, { profiles: 1 }), { signOut: false, actions: ['Manage API Keys', 'Set API Key'] });
  });

  it('a missing permission also offers another profile when there are several', () => {
    const error = refusal({ kind: 'forbidden', reason: 'permission' });
    assert.deepEqual(errorActions(error, { profiles: 2 }), {
      signOut: false,
      actions: ['Manage API Keys', 'Set API Key', 'Switch Profile'],
    });
  });

  it('a forbidden error without a reason is a missing permission', () => {
    assert.deepEqual(errorActions(refusal({ kind: 'forbidden' }), { profiles: 1 }).actions, ['Manage API Keys', 'Set API Key']);
  });

  it('a two-factor refusal keeps the session and leads to the web console, whatever the profiles', () => {
    const error = refusal({ kind: 'forbidden', reason: 'two_factor' });
    for (const profiles of [1, 2]) {
      assert.deepEqual(errorActions(error, { profiles }), { signOut: false, actions: ['Open Web Console', 'Show Logs'] });
    }
  });

  it('any other API error, or a plain error, offers the log and keeps the session', () => {
    for (const error of [
      refusal({ kind: 'server', status: 500 }),
      refusal({ kind: 'not_found', status: 404 }),
      refusal({ kind: 'network' }),
      new Error('That is not an OpenSSH public key.'),
      'a thrown string',
    ]) {
      for (const profiles of [1, 2]) assert.deepEqual(errorActions(error, { profiles }), { signOut: false, actions: ['Show Logs'] });
    }
  });
});
