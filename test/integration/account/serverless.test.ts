import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, extensionApi, sim } from '../support';
import { confirmations, section } from './kit';

describe('account: serverless', function () {
  this.timeout(60_000);
  const c = confirmations();
  type Ep = { id: number; endpoint_name: string; max_workers?: number; target_util?: number };
  type Wg = { id: number; endpoint_id?: number; max_workers?: number };
  const endpoints = async () => ((await api('GET', '/api/v0/endptjobs/', sim.key)) as { results: Ep[] }).results;
  const groups = async () => ((await api('GET', '/api/v0/workergroups/', sim.key)) as { results: Wg[] }).results;

  it('creates an endpoint and a worker group, updates their autoscaling, and deletes both after confirmations', async () => {
    const x = await extensionApi();
    const id = await vscode.commands.executeCommand<number>('gpuRental.createEndpoint', {
      endpoint_name: 'it-endpoint',
      max_workers: 3,
      cold_workers: 0,
      target_util: 0.9,
      min_load: 1,
      cold_mult: 2.5,
    });
    assert.ok((await endpoints()).some((e) => e.id === id));
    assert.equal(await vscode.commands.executeCommand('gpuRental.updateEndpoint', id, { max_workers: 5, target_util: 0.75 }), true);
    const ep = (await endpoints()).find((e) => e.id === id)!;
    assert.deepEqual([ep.max_workers, ep.target_util], [5, 0.75]);

    const template = ((await api('GET', '/api/v0/template/', sim.key)) as { templates: Array<{ hash_id: string }> }).templates[0]!.hash_id;
    const group = await vscode.commands.executeCommand<number>('gpuRental.createWorkerGroup', id, {
      template_hash: template,
      search_params: 'gpu_ram>=24',
      test_workers: 1,
      cold_workers: 0,
      max_workers: 2,
    });
    assert.ok((await groups()).some((g) => g.id === group && g.endpoint_id === id));
    assert.equal(await vscode.commands.executeCommand('gpuRental.updateWorkerGroup', group, { max_workers: 4 }), true);
    assert.equal((await groups()).find((g) => g.id === group)?.max_workers, 4);

    const rows = await section('Serverless');
    const row = rows.find((r) => r.label === 'it-endpoint');
    assert.match(String(row?.description), /workers 0-5 · target 75 % · 1 group/);
    const children = await x.test.accountItems('Serverless', 'it-endpoint');
    assert.equal(children[0]?.label, 'Workers');
    assert.match(String(children[1]?.description), /workers 0-4/);

    // Workers: the group keeps max(cold, test) = 1, loading at first, idle a few seconds later.
    const workerRows = await x.test.accountItems('Serverless', 'it-endpoint', 'Workers');
    assert.equal(workerRows.length, 1);
    assert.match(String(workerRows[0]?.label), /^worker #\d+$/);
    assert.match(String(workerRows[0]?.description), /^(loading|idle) · load 0/);
    const viaGroup = await x.test.accountItems('Serverless', 'it-endpoint', String(children[1]?.label));
    assert.equal(viaGroup[0]?.label, workerRows[0]?.label, 'the same worker under its group');
    const workers = await vscode.commands.executeCommand<Array<{ id: number; status: string }>>('gpuRental.showServerlessWorkers', id);
    assert.equal(workers?.length, 1);
    const log = await vscode.commands.executeCommand<string>('gpuRental.showServerlessLogs', id);
    assert.match(String(log), /worker group \d+ created[\s\S]*worker \d+ loading[\s\S]*updated max_workers=4/);
    assert.match(
      vscode.window.activeTextEditor?.document.getText() ?? '',
      /^# endpoint "it-endpoint": the last 1000 lines/,
      'opened in an editor',
    );
    const groupLog = await vscode.commands.executeCommand<string>('gpuRental.showServerlessLogs', { group }, 1);
    assert.equal(String(groupLog).split('\n').length, 1, 'tail 1');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteWorkerGroup', group), false);
    assert.ok(
      (await groups()).some((g) => g.id === group),
      'declined: kept',
    );
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteWorkerGroup', group), true);
    assert.ok(!(await groups()).some((g) => g.id === group));
    c.answer = false;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteEndpoint', id), false);
    assert.match(c.asked.join('\n'), /Delete endpoint "it-endpoint"\?/);
    c.answer = true;
    assert.equal(await vscode.commands.executeCommand('gpuRental.deleteEndpoint', id), true);
    assert.ok(!(await endpoints()).some((e) => e.id === id));
  });
});
