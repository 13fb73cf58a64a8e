import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import type { Template } from '../../../src/core/api/templates';
import {
  deleteTemplate,
  editTemplate,
  saveAsTemplate,
  searchTemplates,
  templateToRent,
  type TemplateFlowDeps,
} from '../../../src/core/account/templateFlows';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const MINE = { id: 1, hash_id: 'aaaaaaaa1111', name: 'mine', image: 'pytorch/pytorch', tag: '2.5', creator_id: 5 } as Template;
const PUBLIC = { id: 2, hash_id: 'bbbbbbbb2222', name: 'public', image: 'ubuntu', creator_id: 9, desc: 'plain' } as Template;

/** The templates in memory, the requests that reached them, and the stored references' changes. */
function templates(answers: Answer[], searched: Answer[] = []) {
  const sent: string[] = [];
  const ask = scriptedAsk(answers);
  const search = scriptedAsk(searched);
  const done = <T>(line: string, value: T) => (sent.push(line), Promise.resolve(value));
  const d: TemplateFlowDeps = {
    ask,
    templates: {
      search: () => Promise.resolve([MINE, PUBLIC]),
      create: (f) => done(`create ${f.name} ${f.image}:${f.tag} ${f.onstart}`, { ...MINE, id: 3, hash_id: 'cccccccc3333' }),
      edit: (hash, c) => done(`edit ${hash} ${JSON.stringify(c)}`, { id: 1, hash_id: 'dddddddd4444' }),
      delete: (id) => done(`delete ${id}`, undefined),
    },
    searchPick: (o) => search.pick(o),
    me: () => 5,
    recent: {
      follow: (a, b) => done(`follow ${a} ${b}`, undefined),
      forget: (h) => done(`forget ${h}`, undefined),
    },
  };
  return { d, ask, search, sent };
}

describe('template flows', () => {
  it("saves an instance's settings under the name typed, its label offered first", async () => {
    const { d, ask, sent } = templates([{ input: ' my-env ' }]);
    const instance = { id: 42, label: 'train', image_uuid: 'pytorch/pytorch:2.5', onstart: 'echo hi' } as Instance;
    const outcome = await saveAsTemplate(d, instance);
    assert.equal(ask.asked[0]?.text, 'Image, start-up script, disk and connection of #42 become a private template.');
    assert.deepEqual(sent, ['create my-env pytorch/pytorch:2.5 echo hi']);
    assert.equal(
      outcome.notice?.text,
      'GPU Rental: saved template "my-env" (cccccccc). Rent with it from the Account view or "Rent With Template".',
    );
    await assert.rejects(saveAsTemplate(templates([{ input: '  ' }]).d, instance), /A template needs a name/);
  });

  it("edits one setting of a template of the user's own; the stored references follow the new hash", async () => {
    const { d, search, sent } = templates([{ pick: 'Disk (GB)' }, { input: '32' }], [{ pick: 'mine' }]);
    const outcome = await editTemplate(d);
    assert.deepEqual(search.asked[0]?.options, ['mine'], "only the user's own templates are offered");
    assert.equal(outcome.value, 'dddddddd4444');
    assert.deepEqual(sent, ['edit aaaaaaaa1111 {"recommended_disk_space":32}', 'follow aaaaaaaa1111 dddddddd4444']);
    assert.equal(outcome.notice?.text, 'GPU Rental: template "mine" saved; its hash is now dddddddd (was aaaaaaaa).');
    await assert.rejects(editTemplate(templates([{ pick: 'Disk' }, { input: 'lots' }]).d, MINE), /refuses "lots"/);
  });

  it('an untagged image edit means latest, as docker pull does', async () => {
    const { d, sent } = templates([{ pick: 'Image' }, { input: 'ubuntu' }]);
    await editTemplate(d, 'aaaaaaaa1111');
    assert.equal(sent[0], 'edit aaaaaaaa1111 {"image":"ubuntu","tag":"latest"}');
  });

  it('deletes a template only after the confirmation, and forgets it in the stored references', async () => {
    const { d, ask, sent } = templates([{ confirm: false }, { confirm: true }]);
    assert.equal((await deleteTemplate(d, 1)).value, false);
    assert.equal(ask.asked[0]?.text, 'Delete template "mine"?');
    assert.equal((await deleteTemplate(d, MINE)).value, true);
    assert.deepEqual(sent, ['delete 1', 'forget aaaaaaaa1111']);
  });

  it('a search offers every template, then renting with it or copying its hash', async () => {
    const { d, ask, search } = templates([{ pick: 'Copy Hash' }], [{ pick: 'public' }]);
    assert.deepEqual(await searchTemplates(d), { template: PUBLIC, then: 'copy' });
    assert.deepEqual(search.asked[0]?.options, ['mine', 'public']);
    assert.equal(ask.asked[0]?.text, 'GPU Rental: public');
    const rent = templates([], [{ pick: 'mine' }]);
    assert.equal(await templateToRent(rent.d), 'aaaaaaaa1111');
    assert.equal(await templateToRent(rent.d, 'given-hash'), 'given-hash', 'a hash given is not asked again');
  });
});
