import assert from 'node:assert/strict';
import type { SshKey } from '../../../src/core/api/account';
import { addSshKey, attachSshKey, deleteSshKey, detachSshKey, type SshKeyFlowDeps } from '../../../src/core/account/sshKeyFlows';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const LAPTOP = { id: 1, public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAlaptopkeybody me@laptop' } as SshKey;
const NEW = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAnewkeybodyxyz gpu-rental@host';

/** The account's SSH keys in memory and the requests that reached them. */
function keys(answers: Answer[], o: { file?: string } = {}) {
  const sent: string[] = [];
  const ask = scriptedAsk(answers);
  const done = <T>(line: string, value: T) => (sent.push(line), Promise.resolve(value));
  const d: SshKeyFlowDeps = {
    ask,
    sshKeys: {
      list: () => Promise.resolve([LAPTOP]),
      create: (k) => done(`create ${k}`, { id: 2, public_key: k } as SshKey),
      delete: (id) => done(`delete ${id}`, undefined),
      attach: (id, k) => done(`attach ${id} ${k}`, undefined),
      listForInstance: () => Promise.resolve([LAPTOP]),
      detach: (id, k) => done(`detach ${id} ${k}`, undefined),
    },
    readPublicKeyFile: () => Promise.resolve(o.file),
    generateKey: () => done('generate', NEW),
  };
  return { d, ask, sent };
}

describe('SSH key flows', () => {
  it('adds a generated key, or one read from a .pub file, and says how to reach existing instances', async () => {
    const generated = keys([{ pick: 'Generate a new ed25519 key' }]);
    const outcome = await addSshKey(generated.d);
    assert.deepEqual(generated.sent, ['generate', `create ${NEW}`]);
    assert.equal(
      outcome.notice?.text,
      'GPU Rental: SSH key added. New instances accept it; attach it to existing ones with "Attach SSH Key to Instance".',
    );
    const file = keys([{ pick: 'From a .pub file' }], { file: NEW });
    assert.equal((await addSshKey(file.d)).value?.id, 2);
    const dismissed = keys([{ pick: 'From a .pub file' }]);
    assert.deepEqual(await addSshKey(dismissed.d), { value: undefined });
    assert.deepEqual(dismissed.sent, []);
  });

  it('refuses a private key or other text, and does not add a key the account has already', async () => {
    const { d, sent } = keys([{ pick: 'Paste' }, { input: 'hello there' }]);
    await assert.rejects(addSshKey(d), /not an OpenSSH public key/);
    await assert.rejects(addSshKey(keys([]).d, '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn'), /not an OpenSSH public key/);
    const known = keys([]);
    const again = await addSshKey(known.d, `${LAPTOP.public_key.split(' ').slice(0, 2).join(' ')} other-comment`);
    assert.equal(again.value, LAPTOP);
    assert.equal(again.notice?.text, 'GPU Rental: that SSH key is already on the account.');
    assert.deepEqual([sent, known.sent], [[], []], 'nothing created');
  });

  it("deletes a picked key after a confirmation that shows the key's start", async () => {
    const { d, ask, sent } = keys([{ pick: 'me@laptop' }, { confirm: false }, { confirm: true }]);
    assert.equal((await deleteSshKey(d)).value, false);
    assert.match(ask.asked[1]?.detail ?? '', /^ssh-ed25519 AAAAC3Nz.*…\nNew instances will not accept it\./);
    assert.equal((await deleteSshKey(d, 1)).value, true);
    assert.deepEqual(sent, ['delete 1']);
  });

  it('attaches a picked key to an instance; detaches only after a confirmation', async () => {
    const { d, ask, sent } = keys([{ pick: 'me@laptop' }, { confirm: true }]);
    assert.equal((await attachSshKey(d, 42)).notice?.text, 'GPU Rental: instance #42 now accepts that SSH key.');
    assert.equal(ask.asked[0]?.text, 'GPU Rental: Attach which SSH key to #42?');
    assert.equal((await detachSshKey(d, 42, 1)).value, true);
    assert.equal(ask.asked[1]?.text, 'Detach this SSH key from instance #42?');
    assert.equal((await attachSshKey(d, 42, 99)).value, false, 'an unknown key id attaches nothing');
    assert.deepEqual(sent, [`attach 42 ${LAPTOP.public_key}`, 'detach 42 1']);
  });
});
