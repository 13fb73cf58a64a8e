import assert from 'node:assert/strict';
import type { Endpoint, ServerlessWorker, WorkerGroup } from '../../../src/core/api/serverless';
import {
  createEndpoint,
  createWorkerGroup,
  deleteEndpoint,
  deleteWorkerGroup,
  updateEndpoint,
  updateWorkerGroup,
  type ServerlessFlowDeps,
} from '../../../src/core/account/serverlessFlows';
import { readServerlessLog, showWorkers } from '../../../src/core/account/serverlessWorkers';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import { scriptedProgress } from '../../support/scriptedProgress';

const EP = { id: 7, endpoint_name: 'llm', max_workers: 3, target_util: 0.9 } as Endpoint;
const WG = { id: 11, endpoint_id: 7, endpoint_name: 'llm', max_workers: 2 } as WorkerGroup;
const WORKER = { id: 5, status: 'idle', url: 'https://w5.example' } as ServerlessWorker;

/** The service's serverless API in memory and the requests that reached it. */
function serverless(answers: Answer[], o: { endpoints?: Endpoint[]; groups?: WorkerGroup[]; workers?: ServerlessWorker[] } = {}) {
  const sent: string[] = [];
  const ask = scriptedAsk(answers);
  const done = <T>(line: string, value: T) => (sent.push(line), Promise.resolve(value));
  const d: ServerlessFlowDeps = {
    ask,
    serverless: {
      listEndpoints: () => Promise.resolve(o.endpoints ?? [EP]),
      listWorkerGroups: () => Promise.resolve(o.groups ?? [WG]),
      createEndpoint: (f) => done(`create endpoint ${JSON.stringify(f)}`, 8),
      updateEndpoint: (id, f) => done(`update endpoint ${id} ${JSON.stringify(f)}`, undefined),
      deleteEndpoint: (id) => done(`delete endpoint ${id}`, undefined),
      createWorkerGroup: (f) => done(`create group ${JSON.stringify(f)}`, 12),
      updateWorkerGroup: (id, f) => done(`update group ${id} ${JSON.stringify(f)}`, undefined),
      deleteWorkerGroup: (id) => done(`delete group ${id}`, undefined),
      endpointWorkers: (id) => done(`workers endpoint ${id}`, o.workers ?? [WORKER]),
      workerGroupWorkers: (id) => done(`workers group ${id}`, o.workers ?? [WORKER]),
      endpointLogs: (ref, tail) => done(`logs endpoint ${ref.id} ${tail}`, ''),
      workerGroupLogs: (id, tail) => done(`logs group ${id} ${tail}`, 'line 1\nline 2'),
    },
  };
  return { d, ask, sent };
}

describe('serverless flows', () => {
  it('creates an endpoint from a name and a maximum of workers, with the defaults for the rest', async () => {
    const { d, ask, sent } = serverless([{ input: ' my-ep ' }, { input: '4' }]);
    const outcome = await createEndpoint(d);
    assert.equal(outcome.value, 8);
    assert.equal(ask.asked[1]?.detail, 'GPU Rental: my-ep: maximum workers');
    assert.deepEqual(sent, [
      'create endpoint {"endpoint_name":"my-ep","max_workers":4,"cold_workers":0,"target_util":0.9,"min_load":1,"cold_mult":2.5}',
    ]);
    assert.equal(
      outcome.notice?.text,
      'GPU Rental: created endpoint "my-ep". Add a worker group to give it workers; workers bill like instances.',
    );
  });

  it('refuses an endpoint name with spaces and a maximum that is not a whole number; a cancel creates nothing', async () => {
    await assert.rejects(createEndpoint(serverless([{ input: 'my ep' }]).d), /Letters, digits, dot, dash and underscore/);
    await assert.rejects(createEndpoint(serverless([{ input: 'ep' }, { input: '2.5' }]).d), /the input box refuses "2.5"/);
    const cancelled = serverless([{ input: 'ep' }, { input: undefined }]);
    assert.deepEqual(await createEndpoint(cancelled.d), { value: undefined });
    assert.deepEqual(cancelled.sent, []);
  });

  it("updates the one field picked, showing the endpoint's current values, in that field's box", async () => {
    const { d, ask, sent } = serverless([{ pick: 'llm' }, { pick: 'Target utilisation' }, { input: '0.75' }]);
    assert.equal((await updateEndpoint(d)).value, true);
    assert.equal(ask.asked[0]?.text, 'GPU Rental: Update which endpoint?');
    assert.equal(ask.asked[1]?.text, 'GPU Rental: llm');
    assert.equal(ask.asked[2]?.detail, 'GPU Rental: llm: Target utilisation (0-1)');
    assert.deepEqual(sent, ['update endpoint 7 {"target_util":0.75}']);
    await assert.rejects(updateEndpoint(serverless([{ pick: 'Target utilisation' }, { input: '1.5' }]).d, EP), /refuses "1.5"/);
  });

  it('offers a worker group its own fields (GPU RAM, test workers), not the queue times', async () => {
    const { d, ask, sent } = serverless([{ pick: 'Test workers' }, { input: '2' }]);
    assert.equal((await updateWorkerGroup(d, 11)).value, true);
    assert.ok(ask.asked[0]?.options?.includes('GPU RAM (GB)'));
    assert.ok(!ask.asked[0]?.options?.includes('Maximum queue time (s)'));
    assert.deepEqual(sent, ['update group 11 {"test_workers":2}']);
  });

  it('deletes an endpoint or a worker group only after a confirmation naming it', async () => {
    const { d, ask, sent } = serverless([{ confirm: false }, { confirm: true }, { pick: 'worker group 11' }, { confirm: true }]);
    assert.equal((await deleteEndpoint(d, 7)).value, false);
    assert.equal(ask.asked[0]?.text, 'Delete endpoint "llm"?');
    assert.equal((await deleteEndpoint(d, EP)).value, true);
    assert.equal((await deleteWorkerGroup(d)).value, true);
    assert.equal(ask.asked[3]?.text, 'Delete worker group 11 of "llm"?');
    assert.deepEqual(sent, ['delete endpoint 7', 'delete group 11']);
  });

  it('adds a worker group from a template hash and an offer query, under the endpoint picked', async () => {
    const { d, ask, sent } = serverless([{ pick: 'llm' }, { input: ' abc123 ' }, { input: 'gpu_ram>=48' }]);
    assert.equal((await createWorkerGroup(d)).value, 12);
    assert.equal(ask.asked[2]?.detail, 'GPU Rental: llm: which machines');
    assert.deepEqual(sent, [
      'create group {"template_hash":"abc123","search_params":"gpu_ram>=48","test_workers":1,"cold_workers":0,"max_workers":3,"endpoint_id":7,"endpoint_name":"llm"}',
    ]);
    const cancelled = serverless([{ input: '' }]);
    assert.deepEqual(await createWorkerGroup(cancelled.d, EP), { value: undefined });
    assert.deepEqual(cancelled.sent, []);
  });

  it("shows the workers: automation gets them without a pick; a row's pick copies the worker's URL", async () => {
    const auto = serverless([]);
    assert.deepEqual((await showWorkers(auto.d, 7)).value, { workers: [WORKER] });
    const { d, ask } = serverless([{ pick: 'worker #5' }]);
    const picked = await showWorkers(d, { kind: 'endpoint', endpoint: EP });
    assert.equal(picked.value?.copy, 'https://w5.example');
    assert.equal(picked.notice?.text, 'GPU Rental: copied https://w5.example.');
    assert.equal(ask.asked[0]?.text, 'GPU Rental: workers of endpoint "llm" (1)');
    const none = await showWorkers(serverless([], { workers: [] }).d, { kind: 'group', group: WG });
    assert.equal(none.notice?.text, 'GPU Rental: worker group 11 has no workers now; the autoscaler starts them as load needs.');
  });

  it('says there is nothing to show when the account has no endpoints, without a pick', async () => {
    const { d, ask } = serverless([], { endpoints: [], groups: [] });
    const outcome = await showWorkers(d);
    assert.equal(outcome.notice?.text, 'GPU Rental: there are no serverless endpoints yet. Create one first.');
    assert.equal(ask.asked.length, 0);
  });

  it('reads a log into a document headed with what it is and when it was read; an empty log says so', async () => {
    const { d, sent } = serverless([{ pick: 'worker group 11' }]);
    const progress = scriptedProgress();
    const logDeps = { ...d, progress, readAt: () => 'noon' };
    const group = await readServerlessLog(logDeps, undefined, 20);
    assert.equal(group.value?.document, '# worker group 11: the last 20 lines, read noon\nline 1\nline 2');
    assert.deepEqual(
      progress.shown.map((p) => [p.title, p.cancellable]),
      [['reading the logs of worker group 11…', false]],
    );
    const empty = await readServerlessLog(logDeps, 7, 1000);
    assert.equal(empty.value?.document, '# endpoint "llm": the last 1000 lines, read noon\n(the log is empty so far)');
    assert.deepEqual(sent, ['logs group 11 20', 'logs endpoint 7 1000']);
  });
});
