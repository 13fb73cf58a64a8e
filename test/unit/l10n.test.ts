import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, l10n, useTranslator, bundleTranslator } from '../../src/core/l10n';
import { bundleText, collectMessages, messageSources, sourcesUnder } from '../../scripts/l10nBundle';
import { MAX_PLACEHOLDERS, crowdedMessages, findUnlocalised, paddedMessages, suffixArguments } from '../support/l10nScan';

const root = join(__dirname, '..', '..');
const src = join(root, 'src');

/** Files whose strings no user reads: the integration tests' surface, and the translator itself. */
const NOT_SHOWN = new Set(['ui/testApi.ts', 'core/l10n.ts']);

function scan(files: Record<string, string>) {
  return findUnlocalised(new Map(Object.entries(files))).map((f) => f.text);
}

describe('localisation: every string a user reads goes through l10n', function () {
  this.timeout(60_000);

  it('finds no unlocalised user-facing string in src', () => {
    const sources = sourcesUnder(src);
    for (const name of NOT_SHOWN) assert.ok(sources.delete(name), `${name} exists`);
    const found = findUnlocalised(sources);
    assert.deepEqual(
      found.map((f) => `src/${f.file}:${f.line} ${f.text}`),
      [],
      'wrap each in vscode.l10n.t (src/ui) or l10n.t from src/core/l10n.ts, with {0} for values, then run npm run l10n',
    );
  });

  it('writes out every message, so the bundle can hold it', () => {
    const { dynamic } = collectMessages(messageSources(src));
    assert.deepEqual(dynamic, []);
  });

  it('keeps l10n/bundle.l10n.json equal to the messages in the code (npm run l10n writes it)', () => {
    const { messages } = collectMessages(messageSources(src));
    assert.ok(messages.size > 1000, `${messages.size} messages`);
    assert.equal(readFileSync(join(root, 'l10n', 'bundle.l10n.json'), 'utf8'), bundleText(messages));
  });

  describe('one whole sentence per message', () => {
    const bundle = () => Object.keys(JSON.parse(readFileSync(join(root, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>);

    it('has no message that begins or ends with whitespace (a piece glued to another)', () => {
      assert.deepEqual(paddedMessages(bundle()), [], 'make the whole sentence one message; write each variant of an optional part whole');
    });

    it(`has no message with more than ${MAX_PLACEHOLDERS} placeholders`, () => {
      assert.deepEqual(crowdedMessages(bundle()), [], 'split it into whole sentences, or build its rows as messages of their own');
    });

    it('passes no English ending or word as an argument (one message per count form)', () => {
      const found = suffixArguments(messageSources(src));
      assert.deepEqual(
        found.map((f) => `src/${f.file}:${f.line} ${JSON.stringify(f.text)}`),
        [],
        "write n === 1 ? l10n.t('1 offer matches') : l10n.t('{0} offers match', n)",
      );
    });

    it('the checks catch padding, crowding and suffixes', () => {
      assert.deepEqual(paddedMessages([' Billing stops.', 'Done.\n\n', 'Billing stops.']), [' Billing stops.', 'Done.\n\n']);
      assert.deepEqual(crowdedMessages(['{0}{1}{2}{3}{4}', '{0}{1}{2}{3} {0}']), ['{0}{1}{2}{3}{4}']);
      const found = suffixArguments(
        new Map([
          [
            'a.ts',
            `l10n.t('{0} offer{1} match{2}', n, n === 1 ? '' : 's', n === 1 ? 'es' : '');
             vscode.l10n.t('{0} {1} taken', x, n === 1 ? 'was' : 'were');
             l10n.t('{0} offer{1} taken', n, n === 1 ? ' was' : 's were');
             l10n.t('{0} on {1}', name, host ?? '?');
             l10n.t('{0} GB free', l10n.t('{0} of {1}', 'disk', 2));`,
          ],
        ]),
      );
      assert.deepEqual(
        found.map((f) => f.text),
        ['s', 'es', 'was', 'were', ' was', 's were'],
      );
    });
  });

  describe('what the scan counts as user-facing', () => {
    it('flags a message, a button and a title built around a value', () => {
      assert.deepEqual(
        scan({
          'a.ts': `
            void vscode.window.showInformationMessage('GPU Rental: rented the machine.', 'Connect');
            const title = \`Destroy \${name}?\`;
            const item = { label: 'Stop', description: \`\${n} offers match\` };
            const field = { doc: 'Host reliability (0..1)' };
            const rows = [['Price', price], ['CUDA', cuda]];
            const spoken = { label: \`\${gpu} offer\` };
            const header = new ActionItem('Filters', query);
            const rent = { label: \`$(rocket) Rent for \${price}/h\` };
            const done = { label: '$(check) Done' };
            const idle = { label: '$(watch) No idle stop' };`,
        }),
        [
          'GPU Rental: rented the machine.',
          'Connect',
          'Destroy {}?',
          'Stop',
          '{} offers match',
          'Host reliability (0..1)',
          'Price',
          '{} offer',
          'Filters',
          '$(rocket) Rent for {}/h',
          '$(check) Done',
          '$(watch) No idle stop',
        ],
      );
    });

    it('leaves localised strings, logs, shell text, comparisons and identifiers alone', () => {
      assert.deepEqual(
        scan({
          'b.ts': `
            type Action = 'Show Logs' | 'Set API Key';
            const actions: Action[] = ['Show Logs'];
            void vscode.window.showWarningMessage(vscode.l10n.t('GPU Rental: {0} failed.', what));
            const core = l10n.t('the bid of {0} is now {1}/h', name, price);
            s.logger.warn(\`Polling instances failed: \${String(error)}\`);
            const script = 'if [ -n "$T" ]; then echo started tmux; fi';
            const comment = '# >>> gpu-rental idle stop >>>';
            if (line.includes('Warning: Permanently added')) return;
            if (choice === 'Open Settings') open();
            const url = \`\${base}/api/v0/instances/\${id}/\`;
            const el = h('div', { class: 'row header' });
            const argv = ['-az', '--filter=:- .gitignore', src];
            const lines = ['Host ' + alias, '  IdentitiesOnly yes', \`  Port \${port}\`];
            const py = 'try: print(u.urlopen(q,timeout=30).status)';
            const query = { value: 'gpu_ram>=24 verified=true rentable=true' };
            const stamp = 'echo "$(date) started" >> log';
            const who = { label: '$(whoami) $(hostname)' };
            const spin = { text: \`$(sync~spin) \${status}\` };`,
        }),
        [],
      );
    });
  });
});

describe('core l10n.t', () => {
  afterEach(() => useTranslator((message, args) => format(message, args)));

  it('formats English until a translator is set: {n} by the arguments, other braces kept', () => {
    assert.equal(l10n.t('{0} of {1} used', '3 GB', 10), '3 GB of 10 used');
    assert.equal(l10n.t('expected {secrets: {NAME: value}} or {2}', 'x'), 'expected {secrets: {NAME: value}} or {2}');
  });

  it('goes through the translator once one is set (the extension sets vscode.l10n.t)', () => {
    useTranslator(bundleTranslator({ '{0} of {1} used': '{1} dont {0} utilisés', Stop: { message: 'Arrêter' } }));
    assert.equal(l10n.t('{0} of {1} used', '3 Go', 10), '10 dont 3 Go utilisés');
    assert.equal(l10n.t('Stop'), 'Arrêter');
    assert.equal(l10n.t('Start'), 'Start', 'a message the bundle lacks stays English');
  });
});
