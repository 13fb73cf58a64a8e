import assert from 'node:assert/strict';
import { make as instance } from '../instances/fakes';
import {
  bestMatchConfirmation,
  destroyConfirmation,
  rentOfferConfirmation,
  runJobConfirmation,
  startConfirmation,
  stopConfirmation,
  uploadConfirmation,
} from '../../../src/core/agent/confirm';
import { declinedText, sessionProblem } from '../../../src/core/agent/errors';
import { accountText, instancesText, jobOutputText, offersText, outputTail } from '../../../src/core/agent/results';
import type { Instance } from '../../../src/core/api/instances';
import { burnRate } from '../../../src/core/instances/rates';
import type { JobRow } from '../../../src/core/jobs/rows';
import { offer } from '../offers/explorer/fixtures';

/** What a result must never carry: characters a person cannot see, link syntax, a link. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
/** Machine text that would turn into a link, a hidden reordering or a terminal escape if passed on as written. */
const HOSTILE = 'evil\u202Egnp.exe [Fix it](command:workbench.action.terminal.sendSequence) \u001b[31mred\u200B https://x.example/';

function clean(text: string, where: string): void {
  for (const line of text.split('\n')) assert.doesNotMatch(line, HIDDEN, `${where}: a hidden character in "${line}"`);
  assert.ok(!text.includes(']('), `${where}: link syntax in:\n${text}`);
  assert.ok(!text.includes('\u202E') && !text.includes('\u001b'), `${where}: machine text passed on as written`);
}

const NOW = Date.UTC(2025, 5, 1, 12, 0);
/** The instances' fake (running, $0.40/h, disk $0.02/h), up for an hour at NOW. */
const make = (id: number, over: Record<string, unknown> = {}): Instance => instance(id, { start_date: NOW / 1000 - 3600, ...over });

const row = (over: Partial<JobRow> = {}): JobRow => ({
  instanceId: 1,
  jobId: 'j1',
  label: 'train.py',
  description: 'running 1:00',
  state: 'running',
  cwd: '~/work',
  ...over,
});

describe('the language model tools: what they answer', () => {
  it('lists offers one a line, id first, with the price, the hardware and the price context', () => {
    const stats = new Map([['RTX 4090', { gpuName: 'RTX 4090', history: [], median7d: 0.5 }]]);
    const text = offersText(
      [offer({ id: 11, dph_total: 0.4 }), offer({ id: 12, num_gpus: 2, dph_total: 1.2 })],
      { query: 'num_gpus>=1', sort: 'price' },
      stats,
      false,
    );
    const [head, first, second] = text.split('\n');
    assert.match(head!, /^2 offers for .*num_gpus>=1.*price, lowest first; prices include 10 GB disk\. Rent one with gpuRental_rentOffer/);
    assert.match(first!, /^offer 11: RTX 4090 · \$0\.400\/h · 24 GB VRAM per GPU · US · reliability 99\.0% · /);
    assert.match(first!, /Price: 20% under the 7-day median for RTX 4090/);
    assert.match(second!, /^offer 12: RTX 4090 ×2 · \$1\.20\/h/);
  });

  it('says which filters to loosen when no offer matches', () => {
    const text = offersText([], { query: 'gpu_name=H100 num_gpus>=8', sort: 'value' }, new Map(), false);
    assert.match(text, /^No offer matches .*\. Try again without one of: /);
    assert.match(text, /num_gpus>=8/);
  });

  it('lists the instances as the view does, with their jobs and what they bill together', () => {
    const instances = [make(1), make(2, { actual_status: 'stopped', intended_status: 'stopped', label: null })];
    const text = instancesText(instances, (id) => (id === 1 ? [row()] : []), burnRate(instances), NOW);
    const lines = text.split('\n');
    assert.match(
      lines[0]!,
      /^2 instances; together they bill \$0\.420\/h now \(\$0\.400\/h running, \$0\.020\/h disks of stopped ones\)\.$/,
    );
    assert.match(lines[1]!, /^#1 RTX 4090 "m1": running · \$0\.400\/h · up 1h 00m/);
    assert.equal(lines[2], '  job j1 "train.py": running 1:00');
    assert.match(lines[3]!, /^#2 RTX 4090: stopped · \$0\.020\/h disk/);
    assert.match(
      instancesText([], () => [], burnRate([]), NOW),
      /no instances\. Find an offer with gpuRental_searchOffers/,
    );
  });

  it("shows a job's last lines, and says so when it wrote none or could not be read", () => {
    const log = Array.from({ length: 100 }, (_, i) => `step ${i}`).join('\n') + '\n';
    const text = jobOutputText(make(1), row(), log, 3);
    assert.deepEqual(text.split('\n').slice(1), ['step 97', 'step 98', 'step 99']);
    assert.match(text, /^Job j1 "train.py" on "m1" \(RTX 4090, #1\): running 1:00\. The last 3 lines of its output:$/m);
    assert.match(jobOutputText(make(1), row(), '', 3), /It has written no output yet\.$/);
    assert.match(jobOutputText(make(1), row(), undefined, 3), /Its output could not be read now\.$/);
    assert.deepEqual(outputTail('a\r\nb\r\n', 5), ['a', 'b']);
  });

  it('passes every piece of machine and service text through visibleText: no hidden character, no link, no escape sequence', () => {
    const hostileInstance = make(5, { label: HOSTILE, gpu_name: HOSTILE });
    const hostileOffer = offer({ id: 9, gpu_name: HOSTILE, geolocation: HOSTILE });
    const job = row({ jobId: HOSTILE, label: HOSTILE });
    clean(offersText([hostileOffer], { query: '', sort: 'value' }, new Map(), false), 'offers');
    clean(
      instancesText([hostileInstance], () => [job], burnRate([hostileInstance]), NOW),
      'instances',
    );
    clean(jobOutputText(hostileInstance, job, `${HOSTILE}\n${HOSTILE}\n`, 10), 'job output');
    const plan = { image: HOSTILE, disk: 10, label: HOSTILE };
    for (const c of [
      rentOfferConfirmation(hostileOffer, plan),
      bestMatchConfirmation(hostileOffer, { ...plan, query: HOSTILE, sort: 'value' }, 3),
      destroyConfirmation(hostileInstance),
      stopConfirmation(hostileInstance),
      startConfirmation(hostileInstance),
      uploadConfirmation(hostileInstance, HOSTILE),
      runJobConfirmation(hostileInstance, { instanceId: 5, command: HOSTILE, uploadFirst: true, stopAtEnd: true }),
    ]) {
      clean(c.title, 'a confirmation title');
      clean(c.message, 'a confirmation message');
    }
  });

  it('puts the numbers in the confirmations: the price per hour and a day, what billing stops, what keeps billing', () => {
    const o = offer({ id: 31, dph_total: 0.5, storage_cost: 0.1 } as never);
    const rent = rentOfferConfirmation(o, { image: 'ubuntu:22.04', disk: 10, label: 'x' });
    assert.match(rent.title, /^Rent offer 31, RTX 4090, for \$\d\.\d+\/h\?$/);
    assert.match(
      rent.message,
      /It bills \$\d\.\d+\/h \(\$\d\.\d+\/h GPU, \$\d\.\d+\/h for 10 GB disk\) from now until it is destroyed.*A day of it costs about \$\d+\.\d+\./,
    );
    assert.match(rent.message, /GPU Rental then asks you again in its own confirmation/);
    const destroy = destroyConfirmation(make(4));
    assert.equal(destroy.title, 'Destroy "m4" (RTX 4090, #4)?');
    assert.match(destroy.message, /deleted for good; this cannot be undone\. Billing \(\$0\.400\/h now\) stops\./);
    assert.match(stopConfirmation(make(4)).message, /Billing drops from \$0\.400\/h to \$0\.020\/h for its disk/);
    assert.match(
      startConfirmation(make(4, { actual_status: 'stopped' })).message,
      /It bills \$0\.400\/h once running, \$0\.380\/h more than its disk now\./,
    );
    assert.match(
      runJobConfirmation(make(4), { instanceId: 4, command: 'python3 t.py', uploadFirst: false, stopAtEnd: true }).message,
      /the instance stops: billing drops to \$0\.020\/h/,
    );
    assert.match(
      runJobConfirmation(make(4), { instanceId: 4, command: 'python3 t.py', uploadFirst: false, stopAtEnd: false }).message,
      /keeps running and billing \$0\.400\/h/,
    );
    assert.match(
      bestMatchConfirmation(o, { image: 'u', disk: 10, label: 'x', query: 'gpu_name=RTX_4090', sort: 'value' }, 3).message,
      /up to 2 next offers/,
    );
  });

  it("says the account's money: credit, burn, how long it lasts, the cap and the months", () => {
    const instances = [make(1)];
    const period = { kind: 'thisMonth', name: 'June 2025', from: 0, to: 1 } as never;
    const text = accountText({
      credit: 10,
      burn: burnRate(instances),
      cap: 2,
      months: [{ period, summary: { charges: 3.5, credits: 20 } as never, complete: true }],
    });
    assert.match(text, /^Credit: \$10\.00\.$/m);
    assert.match(text, /^Spending now: \$0\.400\/h/m);
    assert.match(text, /^At this rate the credit lasts about 1 d/m);
    assert.match(text, /^Spend limit: \$2\.00\/h/m);
    assert.match(text, /^June 2025: \$3\.50 charges, \$20\.00 credits\.$/m);
    assert.match(
      accountText({ credit: undefined, burn: burnRate([]), cap: undefined, months: undefined }),
      /not reported[\s\S]*none set[\s\S]*could not be read/,
    );
  });

  it('tells a model what to do when it cannot act, and that a declined confirmation is not to be retried', () => {
    assert.match(sessionProblem('noKey')!, /no API key.*Set API Key/);
    assert.equal(sessionProblem('ready'), undefined);
    assert.match(declinedText(), /declined.*Do not try again unless they ask/);
  });
});
