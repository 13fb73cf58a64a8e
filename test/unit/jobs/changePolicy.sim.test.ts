// Change Outbid Policy: the policy file a resumable job's folder holds, written in real bash, read
// back by the listing; and the flow's questions and refusals.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Instance } from '../../../src/core/api/instances';
import { changePolicyFlow } from '../../../src/core/jobs/changePolicy';
import type { OutbidPolicy } from '../../../src/core/jobs/resumable';
import { setPolicyScript } from '../../../src/core/jobs/resumeScripts';
import { jobDir, listScript, newJobId, startScript } from '../../../src/core/jobs/scripts';
import { parseStatusLines, type ResumeStatus } from '../../../src/core/jobs/status';
import type { Ask } from '../../../src/core/prompts';
import { tempDirForSuite } from '../../support';

describe('jobs: Change Outbid Policy', function () {
  this.timeout(30_000);
  const temp = tempDirForSuite('gpu-rental-policy-test-');
  const jobs = () => join(temp(), 'jobs');
  const bash = (script: string, input = '') =>
    execFileSync('bash', ['-c', script], {
      input,
      env: { ...process.env, HOME: temp() },
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });

  function start(resumable: boolean): string {
    const id = newJobId(Date.UTC(2026, 10, 26, 1, 2, resumable ? 3 : 4), () => 0.5);
    const work = join(temp(), `work-${id}`);
    mkdirSync(work, { recursive: true });
    bash(
      startScript({
        jobId: id,
        cwd: work,
        label: 'train.py',
        stopAtEnd: false,
        forceSetsid: true,
        jobsDir: jobs(),
        ...(resumable
          ? {
              resumable: {
                spec: { checkpointDir: 'ckpt', resumeCommand: 'true {latest}', policy: { kind: 'wait' } },
                createCheckpointDir: true,
              },
            }
          : {}),
      }),
      'sleep 30',
    );
    return id;
  }

  const listed = (id: string) => parseStatusLines(bash(listScript(jobs()))).find((s) => s.jobId === id);

  it('writes the new policy on the instance, and the listing reads it back', () => {
    const id = start(true);
    assert.deepEqual(listed(id)?.resume?.policy, { kind: 'wait' });
    bash(setPolicyScript(jobDir(id, jobs()), { kind: 'move', ceiling: 5 }));
    assert.deepEqual(listed(id)?.resume?.policy, { kind: 'move', ceiling: 5 });
    bash(setPolicyScript(jobDir(id, jobs()), { kind: 'raise', ceiling: 0.65 }));
    assert.deepEqual(listed(id)?.resume?.policy, { kind: 'raise', ceiling: 0.65 });
  });

  it('refuses a job that runs once (exit 3), and writes nothing', () => {
    const id = start(false);
    assert.throws(() => bash(setPolicyScript(jobDir(id, jobs()), { kind: 'move', ceiling: 5 })), /status 3|GPU-RENTAL-JOB-NOT-RESUMABLE/);
    assert.equal(listed(id)?.resume, undefined);
  });

  const bid = { id: 7, label: 'train', is_bid: true, dph_base: 0.4, gpu_name: 'RTX 4090', num_gpus: 1 } as unknown as Instance;
  const resume = { policy: { kind: 'wait' }, onDemandPerHour: 0.9 } as unknown as ResumeStatus;
  function deps(answers: { pick?: unknown; input?: string }) {
    const written: Array<{ jobId: string; policy: OutbidPolicy }> = [];
    const relisted: number[] = [];
    const kept: Array<{ instanceId: number; jobId: string; policy: OutbidPolicy }> = [];
    const asked: string[] = [];
    const ask = {
      pick: (q: { title: string; items: Array<{ value: unknown }> }) => {
        asked.push(q.title);
        return Promise.resolve(answers.pick === undefined ? undefined : q.items.find((i) => i.value === answers.pick)?.value);
      },
      input: (q: { title: string; prompt?: string }) => {
        asked.push(`${q.title} | ${q.prompt ?? ''}`);
        return Promise.resolve(answers.input);
      },
      confirm: () => Promise.resolve(false),
    } as unknown as Ask;
    return {
      written,
      relisted,
      kept,
      asked,
      deps: {
        ask,
        choices: {
          changePolicy: (instanceId: number, jobId: string, policy: OutbidPolicy) => {
            kept.push({ instanceId, jobId, policy });
            return Promise.resolve();
          },
        },
        target: () => Promise.resolve({ instanceId: 7 } as never),
        relist: (id: number) => {
          relisted.push(id);
          return Promise.resolve();
        },
        write: (_t: unknown, jobId: string, policy: OutbidPolicy) => {
          written.push({ jobId, policy });
          return Promise.resolve();
        },
      },
    };
  }

  it('asks the policy and its ceiling (the bid and the on-demand price in the prompt), writes it and lists again', async () => {
    const d = deps({ pick: 'move', input: '$5' });
    const result = await changePolicyFlow(d.deps, bid, { jobId: 'j-1', label: 'train.py', resume });
    assert.deepEqual(d.written, [{ jobId: 'j-1', policy: { kind: 'move', ceiling: 5 } }]);
    // Kept on this machine too: what the outbid policies follow (choices.ts).
    assert.deepEqual(d.kept, [{ instanceId: 7, jobId: 'j-1', policy: { kind: 'move', ceiling: 5 } }]);
    assert.deepEqual(d.relisted, [7]);
    assert.match(d.asked[1]!, /\$0\.400?\/h.*\$0\.900?\/h/);
    assert.equal(result?.changed, true);
    assert.match(result!.message, /"train\.py" will now: move ≤ \$5\.00\/h/);
  });

  it('writes nothing when a question is dismissed', async () => {
    for (const answers of [{}, { pick: 'raise' }]) {
      const d = deps(answers);
      assert.equal(await changePolicyFlow(d.deps, bid, { jobId: 'j-1', label: 'train.py', resume }), undefined);
      assert.deepEqual(d.written, []);
      assert.deepEqual(d.kept, []);
      assert.deepEqual(d.relisted, []);
    }
  });

  it('asks nothing for a job that runs once, or on an on-demand instance, and says why', async () => {
    const once = deps({ pick: 'wait' });
    const r1 = await changePolicyFlow(once.deps, bid, { jobId: 'j-1', label: 'train.py' });
    assert.match(r1!.message, /started to run once/);
    const onDemand = deps({ pick: 'wait' });
    const r2 = await changePolicyFlow(onDemand.deps, { ...bid, is_bid: false }, { jobId: 'j-1', label: 'train.py', resume });
    assert.match(r2!.message, /never outbid/);
    assert.deepEqual([...once.asked, ...onDemand.asked, ...once.written, ...onDemand.written], []);
  });
});
