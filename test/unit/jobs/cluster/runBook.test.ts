// A cluster job in the job book: one job id on several instances. Each node keeps its own
// terminal, follower and remembered entry, so rank 0's output is not mixed with rank 1's, and a
// node's end is told and remembered for that node alone. Over a fake remote and a fake clock.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import { JobBook, type JobRemote, type JobTerminal } from '../../../../src/core/jobs/book';
import type { FollowerOptions } from '../../../../src/core/jobs/follower';
import { JobMemory } from '../../../../src/core/jobs/memory';
import type { JobStatus } from '../../../../src/core/jobs/status';
import { listPoller, MemoryLogger } from '../../../support';

const JOB_ID = '20261124-001611-k3f9q2';
const up = (id: number) => ({ id, actual_status: 'running', intended_status: 'running' }) as unknown as Instance;

function fakeTerminal(): JobTerminal & { shown: number } {
  const t = {
    text: '',
    isOpen: false,
    shown: 0,
    append: (chunk: Buffer) => void (t.text += chunk.toString('utf8')),
    note: (line: string) => void (t.text += `[${line}]\n`),
    show: () => {
      t.shown++;
      t.isOpen = true;
    },
    dispose: () => void (t.isOpen = false),
  };
  return t;
}

async function setup() {
  const values: Record<string, unknown> = {};
  const memory = new JobMemory({ get: (k) => values[k], update: (k, v) => Promise.resolve(void (values[k] = v)) });
  const p = listPoller([up(41), up(42)]);
  await p.poller.refresh();
  const follows = new Map<number, FollowerOptions>();
  const remote: JobRemote = {
    start: () => Promise.resolve('tmux'),
    list: () => Promise.resolve([]),
    stop: () => Promise.resolve(true),
    follow: (options) => {
      void options.target().then((target) => follows.set(target.instanceId, options));
      return { start: () => new Promise<void>(() => {}), poke: () => {}, dispose: () => {} };
    },
  };
  const terminals = new Map<number, ReturnType<typeof fakeTerminal>>();
  const book = new JobBook({
    poller: p.poller,
    sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: 'fake', args: [] }),
    memory,
    logger: new MemoryLogger(),
    remote,
    timers: p.clock,
    terminal: (job) => {
      const t = fakeTerminal();
      terminals.set(job.instanceId, t);
      return t;
    },
  });
  return { book, memory, terminals, follows };
}

const ended = (code: number): JobStatus => ({
  jobId: JOB_ID,
  startedAt: 1_000,
  endedAt: 1_060,
  exitCode: code,
  alive: false,
  stopAtEnd: false,
  stopAnswer: undefined,
  cancelled: undefined,
  logBytes: 10,
  cwd: '/root/p',
  label: 'torchrun train.py',
});

describe('jobs/cluster: one job id on several nodes in the job book', () => {
  it('keeps a terminal per node, opens only rank 0, and tells and remembers each node on its own', async () => {
    const t = await setup();
    const o = { cwd: '/root/p', stopAtEnd: false, baseUrl: 'https://api', jobId: JOB_ID, label: 'torchrun train.py' };
    const r0 = await t.book.run(up(41), { ...o, command: '# rank 0\ntrue', show: true });
    const r1 = await t.book.run(up(42), { ...o, command: '# rank 1\ntrue', show: false });
    assert.equal(r0.jobId, JOB_ID);
    assert.equal(r1.jobId, JOB_ID);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual([...t.terminals.keys()], [41, 42], 'one terminal per node');
    assert.equal(t.terminals.get(41)!.shown, 1);
    assert.equal(t.terminals.get(42)!.shown, 0, "rank 1's terminal waits for Switch Rank");
    assert.deepEqual(
      t.memory.jobs().map((j) => [j.instanceId, j.jobId, j.terminalOpen]),
      [
        [41, JOB_ID, true],
        [42, JOB_ID, false],
      ],
    );

    t.follows.get(41)!.onData(Buffer.from('rank 0 says hi\n'));
    t.follows.get(42)!.onData(Buffer.from('rank 1 says hi\n'));
    assert.match(t.book.outputText(JOB_ID, 41)!, /rank 0 says hi/);
    assert.doesNotMatch(t.book.outputText(JOB_ID, 41)!, /rank 1/);
    assert.match(t.book.outputText(JOB_ID, 42)!, /rank 1 says hi/);

    t.follows.get(42)!.onEnd(ended(1));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      t.memory.jobs().map((j) => [j.instanceId, j.ended]),
      [
        [41, false],
        [42, true],
      ],
      "rank 1's end leaves rank 0 followed",
    );

    t.book.showOutput({ instanceId: 42, jobId: JOB_ID, label: 'torchrun train.py' });
    assert.equal(t.terminals.get(42)!.shown, 1, 'Switch Rank opens the terminal rank 1 kept');
    t.book.dispose();
  });
});
