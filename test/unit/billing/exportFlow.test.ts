import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BillingEntry, BillingPage } from '../../../src/core/api/billing';
import { exportSpendFlow, type ExportAction, type ExportDeps } from '../../../src/core/billing/exportFlow';
import { summarise } from '../../../src/core/billing/report';
import { nodeSaveFs, saveAtomically, writeProblem, type SaveFs } from '../../../src/core/billing/saveFile';
import type { Notice } from '../../../src/core/notice';
import { tempDirForSuite } from '../../support';
import { silentProgress } from '../../../src/core/progress';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const NOW = Date.parse('2026-11-05T12:00:00Z');
const T = (iso: string) => Date.parse(iso) / 1000;
const charges: BillingEntry[] = [
  {
    type: 'instance',
    source: 'instance-7',
    description: 'Instance 7 Charges - 1 days',
    amount: 12.345,
    start: T('2026-10-10T00:00:00Z'),
    end: T('2026-10-11T00:00:00Z'),
  },
  {
    type: 'instance',
    source: 'instance-8',
    description: 'Instance 8 Charges - 2.00 hours',
    amount: 0.8,
    start: T('2026-10-12T00:00:00Z'),
    end: T('2026-10-12T02:00:00Z'),
  },
];
const invoices: BillingEntry[] = [
  { type: 'credit', source: 'stripe', description: 'top-up', amount: -20, start: T('2026-10-03T00:00:00Z') },
];
const page = (results: BillingEntry[]): Promise<BillingPage> => Promise.resolve({ results, next_token: null });

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

function setup(answers: Answer[], o: { fs?: SaveFs; targets: Array<string | undefined>; notifyAnswers?: Array<ExportAction | undefined> }) {
  const ask = scriptedAsk(answers);
  const notices: Array<Notice<ExportAction>> = [];
  const asked: string[] = [];
  const targets = [...o.targets];
  const notifyAnswers = [...(o.notifyAnswers ?? [])];
  const reads = { charges: 0 };
  const deps: ExportDeps = {
    ask,
    billing: () => ({ charges: () => (reads.charges++, page(charges)), invoices: () => page(invoices) }) as never,
    labels: () => new Map([[7, 'bert-finetune']]),
    chooseTarget: (name) => (asked.push(name), Promise.resolve(targets.shift())),
    fs: o.fs ?? nodeSaveFs,
    notify: (n) => (notices.push(n), Promise.resolve(notifyAnswers.shift())),
    progress: silentProgress(),
    now: () => NOW,
    tempSuffix: 'test',
  };
  return { deps, ask, notices, asked, reads };
}

describe('Export Spend: period, format, where; written whole or not at all', () => {
  const dir = tempDirForSuite('gpu-rental-export-', { each: true });

  it('exports last month as CSV to the file chosen, suggests the month in its name, and says what it wrote', async () => {
    const target = join(dir(), 'october.csv');
    const t = setup([{ pick: 'Last month' }, { pick: 'CSV' }], { targets: [target] });
    const outcome = await exportSpendFlow(t.deps);
    assert.equal(outcome.kind, 'written');
    assert.deepEqual(t.asked, ['gpu-rental-spend-2026-10.csv']);
    const csv = readFileSync(target, 'utf8');
    assert.equal(csv.split('\r\n').length, 1 + 2 + 1 + 1, 'header, two charges, one credit, and the final line break');
    assert.match(csv, /,bert-finetune,/);
    if (outcome.kind !== 'written') return;
    assert.equal(outcome.charges, summarise(charges, invoices).charges);
    assert.equal(outcome.notice.text, `GPU Rental: exported 2 charge lines ($13.15) and 1 credit for October 2026. The file is ${target}.`);
    assert.deepEqual(outcome.notice.actions, ['openFile', 'reveal']);
    assert.deepEqual(readdirSync(dir()), ['october.csv'], 'no temporary file left beside it');
  });

  it('asks two days for a custom period, and refuses a day that does not exist', async () => {
    const target = join(dir(), 'x.json');
    const t = setup([{ pick: 'Custom' }, { input: '2026-10-01' }, { input: '2026-10-31' }, { pick: 'JSON' }], { targets: [target] });
    const outcome = await exportSpendFlow(t.deps);
    assert.equal(outcome.kind, 'written');
    assert.deepEqual(t.asked, ['gpu-rental-spend-2026-10-01-to-2026-10-31.json']);
    const json = JSON.parse(readFileSync(target, 'utf8')) as { totals: { charges: number; credits: number } };
    assert.equal(json.totals.credits, 20);
    await assert.rejects(
      exportSpendFlow(setup([{ pick: 'Custom' }, { input: '2026-02-29' }], { targets: [] }).deps),
      /refuses "2026-02-29"/,
    );
  });

  it('stops without reading or writing when the user dismisses any question', async () => {
    for (const answers of [[{ pick: undefined }], [{ pick: 'This month' }, { pick: undefined }]] as Answer[][]) {
      const t = setup(answers, { targets: [] });
      assert.equal((await exportSpendFlow(t.deps)).kind, 'cancelled');
    }
    const t = setup([{ pick: 'This year' }, { pick: 'CSV' }], { targets: [undefined] });
    assert.equal((await exportSpendFlow(t.deps)).kind, 'cancelled');
    assert.deepEqual(readdirSync(dir()), []);
  });

  it('says permission denied with Choose Another Folder, then writes to the folder chosen without reading again', async () => {
    const denied: SaveFs = { ...nodeSaveFs, writeNew: () => Promise.reject(errno('EACCES')) };
    let writes = 0;
    const fs: SaveFs = { ...nodeSaveFs, writeNew: (f, d) => (writes++ === 0 ? denied.writeNew(f, d) : nodeSaveFs.writeNew(f, d)) };
    const first = join(dir(), 'locked', 'spend.csv');
    const second = join(dir(), 'spend.csv');
    const t = setup([{ pick: 'Last month' }, { pick: 'CSV' }], { fs, targets: [first, second], notifyAnswers: ['chooseAnother'] });
    const outcome = await exportSpendFlow(t.deps);
    assert.equal(t.notices.length, 1);
    assert.equal(t.notices[0]!.text, `GPU Rental: could not write ${first}: permission denied. Choose another folder.`);
    assert.deepEqual(t.notices[0]!.actions, ['chooseAnother']);
    assert.equal(outcome.kind, 'written');
    assert.match(readFileSync(second, 'utf8'), /^date,kind,/);
    assert.equal(t.reads.charges, 1, 'the charges were read once');
  });

  it('names a full disk and a read-only disk, and ends when the user does not choose again', async () => {
    assert.equal(writeProblem(errno('ENOSPC')), 'the disk is full');
    assert.equal(writeProblem(errno('EROFS')), 'the disk is read-only');
    const fs: SaveFs = { ...nodeSaveFs, writeNew: () => Promise.reject(errno('EROFS')) };
    const t = setup([{ pick: 'Last month' }, { pick: 'CSV' }], { fs, targets: [join(dir(), 'a.csv')], notifyAnswers: [undefined] });
    assert.equal((await exportSpendFlow(t.deps)).kind, 'cancelled');
    assert.match(t.notices[0]!.text, /the disk is read-only\. Choose another folder\.$/);
  });

  it('a real missing folder (ENOENT) is said as such and leaves nothing behind', async () => {
    const missing = join(dir(), 'no-such-folder', 'spend.csv');
    const error = await saveAtomically(nodeSaveFs, missing, 'x').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(writeProblem(error), 'the folder does not exist');
    assert.deepEqual(readdirSync(dir()), []);
  });

  it('a real folder at the target (EISDIR) keeps the folder, removes the temporary file, and a failed rename never clobbers the old file', async () => {
    const folder = join(dir(), 'spend.csv');
    mkdirSync(folder);
    const error = await saveAtomically(nodeSaveFs, folder, 'new').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(writeProblem(error), 'a folder has that name');
    assert.deepEqual(readdirSync(dir()), ['spend.csv']);

    const old = join(dir(), 'old.csv');
    writeFileSync(old, 'the old export');
    const failing: SaveFs = { ...nodeSaveFs, rename: () => Promise.reject(errno('ENOSPC')) };
    await assert.rejects(saveAtomically(failing, old, 'half'));
    assert.equal(readFileSync(old, 'utf8'), 'the old export');
    assert.deepEqual(readdirSync(dir()).sort(), ['old.csv', 'spend.csv']);
  });

  it('replaces an old export whole', async () => {
    const target = join(dir(), 'spend.csv');
    writeFileSync(target, 'old');
    await saveAtomically(nodeSaveFs, target, 'new');
    assert.equal(readFileSync(target, 'utf8'), 'new');
  });
});
