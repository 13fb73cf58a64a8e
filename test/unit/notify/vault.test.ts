import assert from 'node:assert/strict';
import { startScript } from '../../../src/core/jobs/scripts';
import { NotifyVault, scopeOf } from '../../../src/core/notify/vault';
import { MapSecrets } from './kit';

describe('Notify Me: the secrets kept, and the URL a job ends to', () => {
  const A = { baseUrl: 'https://console.vast.ai', profileId: 'default' };
  const B = { baseUrl: 'https://console.vast.ai', profileId: 'work' };
  const URL_A = 'https://ntfy.sh/topic-a';

  it('keeps each profile apart; the newest webhook Set Up made is where a job ends to', async () => {
    let now = 1;
    const secrets = new MapSecrets();
    const vault = new NotifyVault(secrets, () => now++);
    await vault.keep(A, { id: 1, url: URL_A, secret: 's-one', createdHere: true });
    await vault.keep(A, { id: 2, url: 'https://example.com/made-there', secret: 's-two', createdHere: false });
    await vault.keep(B, { id: 3, url: 'https://ntfy.sh/topic-b', secret: 's-three', createdHere: true });
    assert.equal(await vault.jobEndUrl(A), URL_A, 'a webhook made elsewhere never gets a job');
    assert.equal(await vault.jobEndUrl(B), 'https://ntfy.sh/topic-b');
    assert.equal(await vault.secretOf(B, 1), undefined);
    assert.deepEqual([...secrets.values.keys()].sort(), [
      'gpuRental.notify:https://console.vast.ai',
      'gpuRental.notify:https://console.vast.ai#profile=work',
    ]);
    // A rotate keeps the entry's place and origin: the job's URL does not move to it.
    await vault.keep(A, { id: 1, url: URL_A, secret: 's-one-b', createdHere: false });
    assert.equal(await vault.secretOf(A, 1), 's-one-b');
    await vault.keep(A, { id: 4, url: 'https://ntfy.sh/newer', secret: 's-four', createdHere: true });
    assert.equal(await vault.jobEndUrl(A), 'https://ntfy.sh/newer');
    await vault.forget(A, 4);
    assert.equal(await vault.jobEndUrl(A), URL_A);
    await vault.forget(A, 1);
    await vault.forget(A, 2);
    assert.equal(secrets.values.has('gpuRental.notify:https://console.vast.ai'), false, 'an empty entry is deleted');
  });

  it('never fails a job: an unreadable entry, a failing store or a URL that no longer passes gives no URL', async () => {
    const secrets = new MapSecrets();
    const vault = new NotifyVault(secrets);
    secrets.values.set('gpuRental.notify:https://console.vast.ai', '{not json');
    assert.equal(await vault.jobEndUrl(A), undefined);
    secrets.values.set(
      'gpuRental.notify:https://console.vast.ai',
      JSON.stringify({ webhooks: [{ id: 1, url: 'http://x/y', secret: 's', createdHere: true }] }),
    );
    assert.equal(await vault.jobEndUrl(A), undefined, 'not https');
    const broken = new NotifyVault({
      get: () => Promise.reject(new Error('no keychain')),
      store: () => Promise.resolve(),
      delete: () => Promise.resolve(),
    });
    assert.equal(await broken.jobEndUrl(A), undefined);
    assert.equal(await vault.jobEndUrl(undefined), undefined);
    assert.equal(scopeOf({ normalizedBaseUrl: undefined, profileId: 'default' }), undefined);
    assert.deepEqual(scopeOf({ normalizedBaseUrl: 'https://console.vast.ai', profileId: 'work' }), B);
  });

  it("a job's start carries the URL on stdin only: never in the script, which ps shows", () => {
    const base = { jobId: '20261124-001611-k3f9q2', cwd: '~/work', label: 'train.py', stopAtEnd: false };
    const url = 'https://ntfy.sh/secret-topic-4Kz9';
    const script = startScript({ ...base, notifyUrl: url });
    assert.ok(!script.includes('secret-topic'), 'the URL is not in the script');
    assert.match(script, /notify=1/);
    assert.match(startScript(base), /notify=0/);
    for (const bad of [
      'https://x/a"b',
      'https://x/a\nb',
      'https://x/a b',
      'file:///etc/passwd',
      `https://x/${'a'.repeat(2048)}`,
      'https://x/\\',
    ])
      assert.throws(() => startScript({ ...base, notifyUrl: bad }), /not one a job can send its end to/, JSON.stringify(bad));
  });
});
