import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RentPlan } from '../../../src/core/rent/plan';
import type { InputPrompt } from '../../../src/ui/pickers/prompts';
import { api, eventually, extensionLog, recordNotifications, rentableOffers, signIn, sim } from '../support';
import { section } from './kit';

const PATH = '/api/v0/secrets/';
/** Values long enough that a run of 8 of their characters in the log would be theirs. */
const VALUE = 'it_Qv7rX2kWm9.Lp4-Tz';
const CHANGED = 'it/changed value=Zr8Kp3';
const RENT_VALUE = 'it-rent_Hd5Nc8Yq2.Wb';

type QuickInput = vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox;

/**
 * Every quick pick and input box the extension opens from now on, in order, and a way to answer
 * the n-th as a person would: pick the row whose label matches (else the proposed one), or type
 * a text, then press Enter. The extension and these suites share one vscode API.
 */
function recordQuickInputs() {
  const opened: QuickInput[] = [];
  const w = vscode.window;
  const originals = { pick: w.createQuickPick, box: w.createInputBox };
  w.createQuickPick = (<T extends vscode.QuickPickItem>() => {
    const qp = originals.pick<T>();
    opened.push(qp as unknown as QuickInput);
    return qp;
  }) as typeof originals.pick;
  w.createInputBox = () => {
    const box = originals.box();
    opened.push(box);
    return box;
  };
  const at = async (n: number): Promise<QuickInput> => {
    const shown = await eventually(() => opened[n], `quick input ${n} (opened: ${opened.map((o) => o.title ?? '').join(' | ')})`);
    // Its items and value are set just before show(): let it open.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return shown;
  };
  return {
    at,
    accept: async (n: number, label?: (label: string) => boolean, text?: string) => {
      const input = await at(n);
      if (label && 'items' in input) {
        const item = input.items.find((i) => label(i.label));
        assert.ok(item, `quick pick ${n} has the row (${input.items.map((i) => i.label).join(' | ')})`);
        input.activeItems = [item];
        // The active row travels to the workbench before Enter is pressed there.
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      if (text !== undefined) input.value = text;
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    },
    restore: () => {
      w.createQuickPick = originals.pick;
      w.createInputBox = originals.box;
    },
  };
}

const stored = async () => ((await api('GET', PATH, sim.key)) as { secrets: Record<string, string> }).secrets;
const seenIn = (text: string, value: string) => text.includes(value.slice(0, 8));

describe('account: environment variables from the Account view, and a rent of its own', function () {
  this.timeout(90_000);
  /** The texts each input box would be typed, in turn: the first one its `validate` accepts is entered. */
  const typed: string[][] = [];
  /** What each input box asked, and the validation messages the refused texts got. */
  const asked: Array<{ prompt: string; password: boolean; refused: string[] }> = [];
  const confirmed: Array<{ message: string; detail: string }> = [];
  let answer = true;

  beforeEach(async () => {
    typed.length = 0;
    asked.length = 0;
    confirmed.length = 0;
    answer = true;
    const x = await signIn();
    x.test.answerPrompts({
      confirm: async (message, detail) => (confirmed.push({ message, detail }), answer),
      input: async (o: InputPrompt) => {
        const seen = { prompt: o.prompt, password: o.password === true, refused: [] as string[] };
        asked.push(seen);
        for (const text of typed.shift() ?? []) {
          const refusal = o.validate?.(text);
          if (refusal === undefined) return text;
          seen.refused.push(refusal);
        }
        return undefined;
      },
    });
  });
  after(async () => {
    // The account is the run's: no variable of this suite reaches another suite's instances.
    for (const name of Object.keys(await stored()).filter((n) => n.startsWith('IT_'))) await api('DELETE', PATH, sim.key, { key: name });
  });

  it('adds a variable (value in a password box), lists its name only, changes its value and deletes it', async () => {
    typed.push(['1bad', 'it_hf_token'], ['it/has-a-slash', VALUE]);
    assert.equal(await vscode.commands.executeCommand('gpuRental.addSecret'), 'IT_HF_TOKEN');
    assert.deepEqual(asked[0]?.refused, [
      'A name may use only letters, digits and underscores, not starting with a digit (for example HF_TOKEN).',
    ]);
    assert.equal(asked[0]?.password, false);
    assert.equal(asked[1]?.password, true, 'the value is typed in a password box');
    assert.match(
      asked[1]?.refused[0] ?? '',
      /only with letters A-Z and a-z, digits 0-9, and the three characters _ - \.; this one has "\/"\./,
    );
    assert.equal((await stored()).IT_HF_TOKEN, VALUE, 'on the account');

    const rows = await section('Environment Variables');
    const row = rows.find((r) => r.label === 'IT_HF_TOKEN');
    assert.ok(row, `listed: ${rows.map((r) => String(r.label)).join(', ')}`);
    assert.equal(row.description, 'value hidden');
    assert.equal(row.contextValue, 'secret');
    assert.ok(!seenIn(JSON.stringify(rows), VALUE), 'no value in the rows');

    typed.push(['IT_HF_TOKEN']);
    assert.equal(await vscode.commands.executeCommand('gpuRental.addSecret'), undefined, 'not added twice');
    assert.deepEqual(asked.at(-1)?.refused, ['IT_HF_TOKEN exists already: use Change Value on it instead.']);

    typed.push([CHANGED]);
    assert.equal(await vscode.commands.executeCommand('gpuRental.changeSecret', row), true);
    assert.equal(asked.at(-1)?.password, true);
    assert.equal((await stored()).IT_HF_TOKEN, CHANGED, 'a changed value may hold any character');

    answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteSecret', row), false);
    assert.match(confirmed.at(-1)?.message ?? '', /Delete the environment variable IT_HF_TOKEN/);
    assert.ok('IT_HF_TOKEN' in (await stored()), 'declined: kept');
    answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteSecret', row), true);
    assert.ok(!('IT_HF_TOKEN' in (await stored())), 'deleted');
    assert.ok(!(await section('Environment Variables')).some((r) => r.label === 'IT_HF_TOKEN'), 'gone from the view');

    const log = await extensionLog();
    assert.ok(!seenIn(log, VALUE) && !seenIn(log, CHANGED), 'no value in the log');
  });

  it('a key without user_write is refused naming the permission, after the value was asked', async () => {
    const created = await vscode.commands.executeCommand<{ id: number; key: string }>('gpuRental.createApiKey', {
      name: 'it-secrets-reader',
      categories: ['user_read'],
    });
    assert.ok(created?.key);
    assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', created.key), true);
    const notifications = recordNotifications();
    try {
      typed.push(['IT_NOT_ALLOWED'], [VALUE]);
      assert.equal(await vscode.commands.executeCommand('gpuRental.addSecret'), undefined);
      const refusal = notifications.seen.find((n) => n.level === 'error');
      assert.match(
        refusal?.message ?? '',
        /^GPU Rental: Could not add environment variable IT_NOT_ALLOWED: this API key lacks the "user_write" permission/,
      );
      assert.ok(!seenIn(JSON.stringify(notifications.seen), VALUE));
    } finally {
      notifications.dispose();
      await signIn();
      await api('DELETE', `/api/v0/auth/apikeys/${created.id}/`, sim.key);
    }
    assert.ok(!('IT_NOT_ALLOWED' in (await stored())));
  });

  it("adds a rent's own variable on the wizard's confirmation, in a password box; the instance gets it and the account's", async () => {
    await api('POST', PATH, sim.key, { key: 'IT_ACCOUNT_VAR', value: 'from-the-account' });
    const [offer] = await rentableOffers({}, 1);
    const shown = recordQuickInputs();
    let id: number | undefined;
    try {
      const renting = vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id);
      // Image, disk, connection, label and start-up script as proposed.
      for (let i = 0; i < 5; i++) await shown.accept(i);
      await shown.accept(5, (label) => label.includes('Environment variables…'));
      const envStep = await shown.at(6);
      assert.match((envStep as vscode.QuickPick<vscode.QuickPickItem>).placeholder ?? '', /IT_ACCOUNT_VAR from your account's variables/);
      await shown.accept(6, (label) => label.includes('Add a variable'));
      await shown.accept(7, undefined, 'IT_WIZARD_VAR');
      assert.equal(((await shown.at(8)) as vscode.InputBox).password, true, 'the value is typed in a password box');
      await shown.accept(8, undefined, RENT_VALUE);
      await shown.accept(9, (label) => label.includes('Done'));
      const confirmation = (await shown.at(10)) as vscode.QuickPick<vscode.QuickPickItem>;
      assert.ok(confirmation.items.some((i) => i.label === '$(symbol-variable) Environment: IT_WIZARD_VAR (values hidden)'));
      assert.ok(!seenIn(JSON.stringify(confirmation.items.map((i) => [i.label, i.description])), RENT_VALUE));
      await shown.accept(10);
      id = await renting;
    } finally {
      shown.restore();
      await api('DELETE', PATH, sim.key, { key: 'IT_ACCOUNT_VAR' });
    }
    assert.equal(typeof id, 'number', 'rented');
    try {
      const record = (await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as {
        instances: { extra_env: Array<[string, string]> };
      };
      const env = Object.fromEntries(record.instances.extra_env);
      assert.equal(env['IT_WIZARD_VAR'], RENT_VALUE);
      assert.equal(env['IT_ACCOUNT_VAR'], 'from-the-account', "the service added the account's variable");
      assert.ok(!seenIn(await extensionLog(), RENT_VALUE), 'no value in the log');
    } finally {
      await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
    }
  });

  it('rents with a variable of its own: the confirmation names it, the instance has it, the log never holds its value', async () => {
    const [offer] = await rentableOffers({}, 1);
    const plan: RentPlan = {
      image: 'ubuntu:22.04',
      disk: 8,
      runtype: 'ssh_proxy',
      label: `it-secrets-rent-${Date.now().toString(36)}`,
      idleStopMinutes: 0,
      env: { IT_RENT_VAR: RENT_VALUE },
    };
    const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer!.id, plan);
    assert.equal(typeof id, 'number');
    try {
      const detail = confirmed.at(-1)?.detail ?? '';
      assert.match(detail, /Environment: IT_RENT_VAR \(values hidden\)\./);
      assert.ok(!seenIn(detail, RENT_VALUE));
      const record = (await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as {
        instances: { extra_env: Array<[string, string]> };
      };
      assert.deepEqual(
        record.instances.extra_env.find(([k]) => k === 'IT_RENT_VAR'),
        ['IT_RENT_VAR', RENT_VALUE],
        'the instance has the variable',
      );
      assert.ok(!seenIn(await extensionLog(), RENT_VALUE), 'no value in the log');
    } finally {
      await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
    }
  });
});
