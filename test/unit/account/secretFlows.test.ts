import assert from 'node:assert/strict';
import { addSecret, changeSecret, deleteSecret, type SecretFlowDeps } from '../../../src/core/account/secretFlows';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

/** An account's variables in memory, and the requests that reached it. */
function account(answers: Answer[], names: string[] = []) {
  const values = new Map(names.map((n) => [n, 'old']));
  const sent: string[] = [];
  const ask = scriptedAsk(answers);
  const d: SecretFlowDeps = {
    ask,
    secrets: {
      list: () => Promise.resolve([...values.keys()]),
      create: (name, value) => (sent.push(`create ${name}`), values.set(name, value), Promise.resolve()),
      update: (name, value) => (sent.push(`update ${name}`), values.set(name, value), Promise.resolve()),
      delete: (name) => (sent.push(`delete ${name}`), values.delete(name), Promise.resolve()),
    },
  };
  return { d, ask, values, sent };
}

type InputOptions = Parameters<SecretFlowDeps['ask']['input']>[0];

/** The validation message the n-th input box the flow opened shows for `text`. */
const refusalOf = (inputs: InputOptions[], n: number, text: string) => inputs[n]?.validate?.(text);

describe('environment variable flows', () => {
  it('asks the name in a plain box and the value in a password box, refusing what the service would', async () => {
    const { d, values } = account([]);
    const inputs: InputOptions[] = [];
    const typed = ['it_hf_token', 'it_Qv7rX2kWm9.Lp4-Tz'];
    const outcome = await addSecret({ ...d, ask: { ...d.ask, input: (o) => (inputs.push(o), Promise.resolve(typed.shift())) } });
    assert.equal(outcome.value, 'IT_HF_TOKEN', 'upper-cased, as the service stores it');
    assert.equal(values.get('IT_HF_TOKEN'), 'it_Qv7rX2kWm9.Lp4-Tz');
    assert.equal(inputs[0]?.password, undefined);
    assert.equal(inputs[1]?.password, true, 'the value is typed in a password box');
    assert.equal(
      refusalOf(inputs, 0, '1bad'),
      'A name may use only letters, digits and underscores, not starting with a digit (for example HF_TOKEN).',
    );
    assert.match(
      refusalOf(inputs, 1, 'it/has-a-slash') ?? '',
      /only with letters A-Z and a-z, digits 0-9, and the three characters _ - \.; this one has "\/"\./,
    );
    assert.match(outcome.notice?.text ?? '', /^GPU Rental: added IT_HF_TOKEN .*instances that exist already do not\.$/);
    assert.doesNotMatch(outcome.notice!.text, /Qv7rX2kW/, 'the value is never in a message');
  });

  it('refuses a name the account has already at the name box, before the value is asked', async () => {
    const { d, sent } = account([], ['IT_HF_TOKEN']);
    let refusal: string | undefined;
    const outcome = await addSecret({
      ...d,
      ask: { ...d.ask, input: (o) => ((refusal = o.validate?.('it_hf_token')), Promise.resolve(undefined)) },
    });
    assert.equal(refusal, 'IT_HF_TOKEN exists already: use Change Value on it instead.');
    assert.deepEqual([outcome.value, sent], [undefined, []]);
  });

  it('changes a value in a password box; a changed value may hold any character', async () => {
    const { d, ask, values } = account([{ input: 'it/changed value=Zr8Kp3' }], ['IT_HF_TOKEN']);
    assert.equal((await changeSecret(d, 'IT_HF_TOKEN')).value, true);
    assert.equal(values.get('IT_HF_TOKEN'), 'it/changed value=Zr8Kp3');
    assert.equal(
      ask.asked[0]?.text,
      'Replaces the value of IT_HF_TOKEN; instances created from now on get the new one. It is not shown again after this.',
    );
  });

  it('deletes only after a confirmation naming the variable; declined keeps it', async () => {
    const { d, ask, values } = account([{ pick: 'IT_HF_TOKEN' }, { confirm: false }, { confirm: true }], ['IT_HF_TOKEN']);
    assert.equal((await deleteSecret(d)).value, false);
    assert.match(ask.asked[1]?.text ?? '', /^Delete the environment variable IT_HF_TOKEN/);
    assert.ok(values.has('IT_HF_TOKEN'), 'declined: kept');
    assert.equal((await deleteSecret(d, 'it_hf_token')).value, true);
    assert.ok(!values.has('IT_HF_TOKEN'), 'deleted');
  });

  it('says the account has none instead of an empty pick', async () => {
    const { d, ask } = account([]);
    const outcome = await changeSecret(d);
    assert.equal(outcome.notice?.text, 'GPU Rental: the account has no environment variables. Add one with "Add Environment Variable".');
    assert.equal(ask.asked.length, 0);
  });
});
