// The user's choices stay on this machine (issue 36, defect 1): a resumable job's policy and
// ceiling and its stop-at-end are kept in the extension's own storage; the instance's copies (files
// its image, its host or the job can rewrite) are compared with them and never followed. The job's
// folder is made and listed by the real scripts in bash; the outbid policies then act on what the
// job book made of that listing, and every request that changes what the user pays is recorded.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/core/api/instances';
import { JobBook, type JobRemote } from '../../../src/core/jobs/book';
import { JobChoices, MAX_CHOICES, memoryChoicesState } from '../../../src/core/jobs/choices';
import { JobMemory } from '../../../src/core/jobs/memory';
import { OutbidPolicies, type OutbidPolicyDeps } from '../../../src/core/jobs/outbidPolicy';
import type { OutbidPolicy } from '../../../src/core/jobs/resumable';
import { listScript } from '../../../src/core/jobs/scripts';
import { startScript } from '../../../src/core/jobs/scripts';
import { parseStatusLines } from '../../../src/core/jobs/status';
import { listPoller, MemoryLogger, tempDirForSuite } from '../../support';
import { silentProgress } from '../../../src/core/progress';

const ID = 77;
const running = { id: ID, label: 'train', actual_status: 'running', intended_status: 'running', is_bid: true } as unknown as Instance;
/** Outbid: stopped, and the host set the machine's minimum bid to $100/h. */
const outbid = {
  ...running,
  actual_status: 'stopped',
  intended_status: 'running',
  dph_base: 0.3,
  min_bid: 100,
  num_gpus: 1,
  gpu_name: 'RTX 3090',
  storage_total_cost: 0.01,
} as unknown as Instance;

describe('jobs: the user’s choices stay on this machine', function () {
  this.timeout(60_000);
  const temp = tempDirForSuite('gpu-rental-choices-test-');
  let books = 0;
  let jobsDir = () => join(temp(), 'jobs');
  const bash = (script: string, input = '') =>
    execFileSync('bash', ['-c', script], {
      input,
      env: { ...process.env, HOME: temp() },
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });

  /** A job book whose remote is real bash in a temporary home: start and list run the extension's own scripts. */
  async function book(choices = new JobChoices(memoryChoicesState()), fresh = true) {
    if (fresh) {
      const dir = join(temp(), `jobs-${++books}`);
      jobsDir = () => dir;
    }
    const p = listPoller([running]);
    await p.poller.refresh();
    const values: Record<string, unknown> = {};
    const memory = new JobMemory({ get: (k) => values[k], update: (k, v) => Promise.resolve(void (values[k] = v)) });
    const remote: JobRemote = {
      start: (_t, command, o) => {
        const work = join(temp(), 'work');
        mkdirSync(work, { recursive: true });
        bash(startScript({ ...o, cwd: work, jobsDir: jobsDir(), forceSetsid: true }), command);
        return Promise.resolve('setsid');
      },
      list: () => Promise.resolve(parseStatusLines(bash(listScript(jobsDir())))),
      stop: () => Promise.resolve(true),
      follow: () => ({ start: () => Promise.resolve(), poke: () => {}, dispose: () => {} }),
    };
    const logger = new MemoryLogger();
    const b = new JobBook({
      poller: p.poller,
      sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: 'fake', args: [] }),
      memory,
      choices,
      logger,
      remote,
      timers: p.clock,
      terminal: () => ({ text: '', isOpen: false, append: () => {}, note: () => {}, show: () => {}, dispose: () => {} }),
    });
    // A listing begun by a start may have read the folder before the job was in it: a second one after it has.
    const list = async () => {
      await b.list(ID);
      await b.list(ID);
    };
    return { book: b, logger, choices, list };
  }

  /** The outbid policies over the book, with every paying request recorded. */
  function policies(b: JobBook) {
    const paid = { bids: [] as number[], rentCeilings: [] as number[] };
    const deps = {
      jobs: { resumableJobs: (id: number) => b.resumableJobs(id), resume: () => Promise.resolve() },
      instances: {
        show: () => Promise.resolve(outbid),
        changeBid: (_id: number, price: number) => {
          paid.bids.push(price);
          return Promise.resolve();
        },
        stop: () => Promise.resolve(),
        destroy: () => Promise.resolve(),
      },
      copy: { copyBetweenInstances: () => Promise.reject(new Error('no copy here')), cancelCopy: () => Promise.resolve() },
      poller: { onDidUpdate: () => ({ dispose: () => {} }), refresh: () => Promise.resolve(), watch: () => {}, setInterest: () => {} },
      rent: {
        rentLike: (_old: Instance, ceiling: number) => {
          paid.rentCeilings.push(ceiling);
          return Promise.resolve({ kind: 'nothingFits' as const });
        },
      },
      allowsSpend: () => Promise.resolve(true),
      sshTarget: (i: Instance) => Promise.resolve({ instanceId: i.id, alias: 'fake', args: [] }),
      run: () => Promise.resolve({ code: 0, stdout: '', stderr: '' }),
      progress: silentProgress(),
      ask: { confirm: () => Promise.resolve(false) },
      logger: new MemoryLogger(),
    } as unknown as OutbidPolicyDeps;
    return { policies: new OutbidPolicies(deps), paid };
  }

  async function startResumable(b: JobBook, policy: OutbidPolicy, stopAtEnd = true): Promise<string> {
    const { jobId } = await b.run(running, {
      command: 'sleep 30',
      cwd: '/unused',
      stopAtEnd,
      baseUrl: 'https://console.vast.ai',
      resumable: { spec: { checkpointDir: 'ckpt', resumeCommand: 'true {latest}', policy }, createCheckpointDir: true },
    });
    return jobId;
  }

  /** Rewrites a file of the job's folder on the "instance", as its image, host or job could. */
  const rewrite = (jobId: string, file: string, text: string) => writeFileSync(join(jobsDir(), jobId, file), text);

  /** Every value a hostile instance could put in the files the extension keeps there. */
  const HOSTILE_POLICIES = [
    'raise 128',
    'move 128',
    'raise 0.61',
    'move 99.999999',
    'wait',
    '',
    'raise 1e9',
    'raise -1',
    'garbage\tmove 128',
  ];

  it('raise 0.6 chosen here: whatever the policy file says, no bid beyond $0.60/h is sent', async () => {
    const { book: b, logger, list } = await book();
    const jobId = await startResumable(b, { kind: 'raise', ceiling: 0.6 });
    for (const hostile of HOSTILE_POLICIES) {
      rewrite(jobId, 'policy', `${hostile}\n`);
      rewrite(jobId, 'ondemand', '999\n');
      rewrite(jobId, 'label', '[Raise the bid](command:gpuRental.changeBid)\n');
      await list();
      const [job] = b.resumableJobs(ID);
      assert.deepEqual(job?.spec.policy, { kind: 'raise', ceiling: 0.6 }, hostile);
      const { policies: p, paid } = policies(b);
      const outcome = await p.onOutbid(outbid);
      assert.ok(outcome?.kind === 'acted', `${hostile}: ${JSON.stringify(outcome)} ${JSON.stringify(b.resumableJobs(ID))}`);
      // The minimum is $100/h: a bid of $100.5 would be needed, above the $0.60 chosen here.
      assert.deepEqual(paid, { bids: [], rentCeilings: [] }, hostile);
      assert.match(outcome.notice.text, /above the ceiling of \$0\.600?\/h/, `${hostile}: ${outcome.notice.text}`);
      assert.doesNotMatch(outcome.notice.text, /\$128|\]\(command:/, hostile);
      if (hostile !== 'raise 0.6') assert.match(outcome.notice.text, /follows what you chose on this machine/, hostile);
    }
    assert.ok(
      logger.lines.some((l) =>
        /the instance's copy of its outbid policy says "raise 128"; following what was chosen here \("raise 0\.6"\)/.test(l),
      ),
    );
  });

  it('move 0.5 chosen here: the rent elsewhere is looked for within $0.50/h, never the file’s $128', async () => {
    const { book: b, list } = await book();
    const jobId = await startResumable(b, { kind: 'move', ceiling: 0.5 });
    for (const hostile of HOSTILE_POLICIES) {
      rewrite(jobId, 'policy', `${hostile}\n`);
      await list();
      const { policies: p, paid } = policies(b);
      const outcome = await p.onOutbid(outbid);
      assert.deepEqual(paid, { bids: [], rentCeilings: [0.5] }, `${hostile}: ${JSON.stringify(outcome)}`);
    }
  });

  it('wait chosen here: nothing that pays is ever sent, whatever the file says', async () => {
    const { book: b, list } = await book();
    const jobId = await startResumable(b, { kind: 'wait' });
    for (const hostile of HOSTILE_POLICIES) {
      rewrite(jobId, 'policy', `${hostile}\n`);
      await list();
      const { policies: p, paid } = policies(b);
      await p.onOutbid(outbid);
      assert.deepEqual(paid, { bids: [], rentCeilings: [] }, hostile);
    }
  });

  it('a job with no choice on this machine follows "wait", says so, and sends nothing', async () => {
    const { book: b } = await book();
    const jobId = await startResumable(b, { kind: 'raise', ceiling: 0.6 });
    // Another machine's job: this machine never chose anything for it.
    const { book: other, list: listOther } = await book(new JobChoices(memoryChoicesState()), false);
    rewrite(jobId, 'policy', 'move 128\n');
    await listOther();
    assert.deepEqual(other.resumableJobs(ID)[0]?.spec.policy, { kind: 'wait' });
    const { policies: p, paid } = policies(other);
    const outcome = await p.onOutbid(outbid);
    assert.deepEqual(paid, { bids: [], rentCeilings: [] });
    assert.ok(outcome?.kind === 'acted');
    assert.match(
      outcome.notice.text,
      /No outbid policy was chosen for .* on this machine, so it waits; the instance's own copy \("move 128"\) is not followed/,
    );
  });

  it('stop-at-end and the status files rewritten: the row and the book follow the choice made here', async () => {
    const { book: b, logger, list } = await book();
    const jobId = await startResumable(b, { kind: 'wait' }, true);
    for (const [file, text] of [
      ['stop-at-end', '0\n'],
      ['cancelled', 'keep\n'],
      ['history', '1:moved:999999:0\n'.repeat(50)],
      // Another folder than the one chosen (not /: the listing would measure this machine's newest top folder).
      ['ckpt', `${temp()}/elsewhere\n`],
      ['exit', '0\n'],
    ] as const) {
      rewrite(jobId, file, text);
      await list();
      const [status] = b.statusesOf(ID);
      assert.equal(status?.stopAtEnd, true, file);
    }
    assert.ok(logger.lines.some((l) => /stop-at-end off; following what was chosen here \(on\)/.test(l)));
    assert.ok(readdirSync(jobsDir()).includes(jobId));
  });

  it('Change Outbid Policy and a move carry the choice; the newest MAX_CHOICES are kept', async () => {
    const choices = new JobChoices(memoryChoicesState(), () => 1);
    await choices.chose(ID, '20261128-000000-aaaaaa', { policy: { kind: 'raise', ceiling: 0.6 }, stopAtEnd: true });
    await choices.changePolicy(ID, '20261128-000000-aaaaaa', { kind: 'move', ceiling: 0.7 });
    assert.deepEqual(choices.policy(ID, '20261128-000000-aaaaaa'), { kind: 'move', ceiling: 0.7 });
    assert.equal(choices.get(ID, '20261128-000000-aaaaaa')?.stopAtEnd, true);
    await choices.moved(ID, 88, '20261128-000000-aaaaaa');
    assert.deepEqual(choices.policy(88, '20261128-000000-aaaaaa'), { kind: 'move', ceiling: 0.7 });
    let t = 2;
    const many = new JobChoices(memoryChoicesState(), () => t++);
    for (let i = 0; i < MAX_CHOICES + 5; i++) await many.chose(i + 1, '20261128-000000-aaaaaa', { stopAtEnd: false });
    assert.equal(many.get(1, '20261128-000000-aaaaaa'), undefined, 'the oldest went');
    assert.ok(many.get(MAX_CHOICES + 5, '20261128-000000-aaaaaa'));
  });
});
