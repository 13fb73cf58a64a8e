import assert from 'node:assert/strict';
import {
  checkRentEnvName,
  checkRentEnvValue,
  checkSecretName,
  checkSecretValue,
  describeRentEnv,
  explainSecretError,
  normalizeSecretName,
  presentSecret,
  rentEnvHint,
} from '../../../src/core/account/secrets';
import { ApiError } from '../../../src/core/api/errors';

const TOKEN = 'hf_Rk29sLq8Vx3mNz7Tp4Wd';

describe('account environment variables: names, values and rows', () => {
  it('takes a name as the service documents it, and says what one may be', () => {
    for (const good of ['HF_TOKEN', 'hf_token', '_X', 'a1', '  WANDB_API_KEY ']) assert.equal(checkSecretName(good), undefined, good);
    assert.equal(checkSecretName(''), 'Enter a name.');
    assert.equal(checkSecretName('   '), 'Enter a name.');
    for (const bad of ['1ABC', 'HF-TOKEN', 'HF TOKEN', 'HF.TOKEN', 'ÄPFEL', 'A=B', '-p 8000:8000'])
      assert.equal(
        checkSecretName(bad),
        'A name may use only letters, digits and underscores, not starting with a digit (for example HF_TOKEN).',
        bad,
      );
    assert.equal(normalizeSecretName(' hf_token '), 'HF_TOKEN', 'as the service stores it');
  });

  it('refuses CONTAINER_API_KEY and CONTAINER_ID as an account variable and as a rent variable, with the same words', () => {
    // An account variable reaches every instance: of this name it would replace the instance's own key.
    for (const name of ['CONTAINER_API_KEY', 'container_api_key', ' CONTAINER_API_KEY ', 'CONTAINER_ID']) {
      const account = checkSecretName(name);
      const rent = checkRentEnvName(name, []);
      assert.equal(account, `${name.trim()} is set by the service in every instance (the instance's own key and id); pick another name.`);
      assert.equal(rent, account, name);
    }
    assert.equal(checkSecretName('CONTAINER_API_KEY_2'), undefined, 'only the names the service sets');
  });

  it("holds a new value to the service's characters and names the first one that is not among them", () => {
    assert.equal(checkSecretValue('hf_abc.123-X', 'create'), undefined);
    assert.equal(
      checkSecretValue('hf_abc/123', 'create'),
      'The service accepts a new variable\'s value only with letters A-Z and a-z, digits 0-9, and the three characters _ - .; this one has "/".',
    );
    assert.match(checkSecretValue('two words', 'create')!, /this one has a space\.$/);
    assert.match(checkSecretValue('pass=wörd', 'create')!, /this one has "="\.$/);
    assert.equal(checkSecretValue('', 'create'), 'Enter a value.');
    assert.equal(checkSecretValue('a/b c=d', 'update'), undefined, 'a changed value has no documented pattern');
    assert.equal(checkSecretValue('', 'update'), 'Enter a value.');
    assert.equal(checkSecretValue('line\nbreak', 'update'), 'A value must be on one line, without control characters.');
  });

  it("checks a rent's own variable: a name once, never one the service sets, a value on one line", () => {
    assert.equal(checkRentEnvName('MODEL_ID', []), undefined);
    assert.equal(checkRentEnvName('MODEL_ID', ['MODEL_ID']), 'MODEL_ID is already set for this rent; remove it first to change it.');
    assert.match(checkRentEnvName('container_api_key', [])!, /is set by the service in every instance/);
    assert.match(checkRentEnvName('CONTAINER_ID', [])!, /is set by the service/);
    assert.match(checkRentEnvName('-p 8000:8000', [])!, /A name may use only/, 'a port flag cannot pass as a name');
    assert.equal(checkRentEnvValue('TheBloke/Llama-2 7B=x'), undefined, 'any one-line value');
    assert.equal(checkRentEnvValue(''), 'Enter a value.');
    assert.equal(checkRentEnvValue('a\u0000b'), 'A value must be on one line, without control characters.');
  });

  it('shows a variable by its name only', () => {
    const row = presentSecret('HF_TOKEN');
    assert.deepEqual(
      { id: row.id, label: row.label, description: row.description, icon: row.icon, contextValue: row.contextValue },
      { id: 'secret-HF_TOKEN', label: 'HF_TOKEN', description: 'value hidden', icon: 'symbol-variable', contextValue: 'secret' },
    );
    assert.match(row.tooltip!, /every instance created from now on/);
  });

  it("says on the rent's step what the service adds by itself, and lists a rent's names without values", () => {
    assert.equal(
      rentEnvHint(['HF_TOKEN']),
      "For this rent only; values are not shown, logged or kept. HF_TOKEN from your account's variables is added by the service.",
    );
    assert.match(rentEnvHint(['A', 'B']), /A, B from your account's variables are added by the service\.$/);
    assert.match(rentEnvHint(undefined), /Your account's variables \(Account view, Environment Variables\) are added by the service\.$/);
    assert.equal(describeRentEnv({ HF_TOKEN: TOKEN, MODEL_ID: 'x' }), 'Environment: HF_TOKEN, MODEL_ID (values hidden)');
    assert.equal(describeRentEnv({}), undefined);
    assert.equal(describeRentEnv(undefined), undefined);
  });

  it("words each refusal code, and leaves a missing permission and other faults to the guard's usual fix", () => {
    const refused = (code: string) =>
      new ApiError({
        kind: 'bad_request',
        action: 'add environment variable HF_TOKEN',
        method: 'POST',
        path: '/api/v0/secrets/',
        status: 400,
        code,
      });
    const words = (code: string) => (explainSecretError(refused(code), 'HF_TOKEN') as Error).message;
    assert.equal(
      words('existing_key'),
      'Could not add environment variable HF_TOKEN: HF_TOKEN already exists on the account. Use Change Value on it to replace its value.',
    );
    assert.match(words('max_secrets'), /as many variables as the service allows\. Delete one/);
    assert.match(words('invalid_characters'), /a new value only letters A-Z and a-z, digits 0-9, and the three characters _ - \./);
    assert.match(words('input_too_long'), /longer than the service accepts/);
    assert.match(words('nonexistent_key'), /no variable named HF_TOKEN on the account/);
    assert.match(words('missing_input'), /name or the value is missing/);
    assert.match(words('empty_input'), /refused an empty name or value/);
    for (const code of [
      'existing_key',
      'max_secrets',
      'invalid_characters',
      'input_too_long',
      'nonexistent_key',
      'missing_input',
      'empty_input',
    ])
      assert.ok(!(explainSecretError(refused(code), 'HF_TOKEN') instanceof ApiError), code);

    const unknown = refused('something_new');
    assert.equal(explainSecretError(unknown, 'X'), unknown, 'an undocumented code keeps the service message');
    const forbidden = new ApiError({
      kind: 'forbidden',
      action: 'add environment variable X',
      method: 'POST',
      path: '/api/v0/secrets/',
      status: 401,
      permission: 'user_write',
    });
    assert.equal(explainSecretError(forbidden, 'X'), forbidden, 'the permission message and its buttons stay');
  });
});
