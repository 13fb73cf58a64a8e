import * as assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TOOL_NAMES } from '../../src/core/ids';
import { formatDollars } from '../../src/core/format';
import type { Offer } from '../../src/core/api/offers';
import { always, api, eventually, extensionApi, instanceStatus, rentedAndRunning, signIn, sim } from './support';

// The language model tools, called as an agent calls them: through vscode.lm.invokeTool, against the
// simulator. Outside a chat, VS Code confirms a tool's prepareInvocation with a modal that a test
// window answers "yes" by itself (its dialogs are skipped under test): GPU Rental's own
// confirmation, answered through the test API, is the one that decides here, as for the palette.

/** The jobs of this suite live here on the instance (as test/integration/jobs.test.ts). */
const JOBS = `/tmp/gpu-rental-itest-agent-jobs-${process.pid}`;
/** Every result text a tool gave in this suite: the last test reads them all. */
const results: string[] = [];
let n = 0;
const uniqueLabel = () => `it-agent-${Date.now().toString(36)}-${n++}`;

async function invoke(name: string, input: object): Promise<string> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
  results.push(text);
  return text;
}

/** A failed call's message, as the model reads it. */
async function failure(name: string, input: object): Promise<string> {
  try {
    const text = await invoke(name, input);
    assert.fail(`${name} succeeded: ${text}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    results.push(message);
    return message;
  }
}

async function instancesLabelled(label: string) {
  const res = (await api('GET', '/api/v0/instances/?owner=me', sim.key)) as { instances: Array<{ id: number; label: string | null }> };
  return res.instances.filter((i) => i.label === label);
}

/** Offers no other rent suite takes: the dearest verified ones, one per call. */
let k = 0;
async function freshOffer(): Promise<Offer> {
  const body = { rentable: { eq: true }, verified: { eq: true }, order: [['dph_total', 'desc']], limit: 80, type: 'on-demand' };
  const res = (await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] };
  return res.offers[40 + k++]!;
}

describe('agent tools: the extension as language model tools', function () {
  this.timeout(120_000);
  let id: number;

  before(async () => {
    const x = await signIn();
    x.test.useJobsFolder(JOBS);
    id = await rentedAndRunning({ label: uniqueLabel() });
    await x.test.refreshInstances();
  });
  beforeEach(async () => {
    const x = await signIn();
    x.test.answerPrompts(always(true));
    x.test.useJobsFolder(JOBS);
  });
  after(async () => {
    const x = await extensionApi();
    x.test.useJobsFolder(undefined);
    if ((await instanceStatus(id)) != null) await api('DELETE', `/api/v0/instances/${id}/`, sim.key);
    await rm(JOBS, { recursive: true, force: true });
  });

  it('registers every tool with VS Code, the read-only ones referenceable in chat', () => {
    const registered = vscode.lm.tools.filter((t) => t.name.startsWith('gpuRental_')).map((t) => t.name);
    assert.deepEqual([...registered].sort(), [...TOOL_NAMES].sort());
  });

  it('searches offers in the query language: ids, prices and the price context, as the API lists them', async () => {
    const text = await invoke('gpuRental_searchOffers', { query: 'num_gpus>=1', sort: 'price', limit: 5 });
    const lines = text.split('\n');
    assert.match(lines[0]!, /^5 offers for .*num_gpus>=1.*price, lowest first; prices include 10 GB disk\./);
    const body = { rentable: { eq: true }, verified: { eq: true }, external: { eq: false }, rented: { eq: false }, num_gpus: { gte: 1 } };
    const listed = (
      (await api('POST', '/api/v0/bundles/', sim.key, {
        ...body,
        order: [['dph_total', 'asc']],
        limit: 5,
        type: 'on-demand',
        allocated_storage: 10,
      })) as { offers: Offer[] }
    ).offers;
    for (const [i, offer] of listed.entries()) {
      assert.match(lines[i + 1]!, new RegExp(`^offer ${offer.id}: .* · ${formatDollars(offer.dph_total).replace('$', '\\$')}/h · `));
      assert.match(lines[i + 1]!, /Price: \d+% (under|over) the 7-day median|at the 7-day median|No price history/);
    }
    assert.match(
      await failure('gpuRental_searchOffers', { query: 'num_gpus>>2' }),
      /^The offer query does not read: .*Fix it and try again\.$/,
    );
  });

  it('lists the instances as the Instances view shows them, with status and cost', async () => {
    const x = await extensionApi();
    const text = await invoke('gpuRental_listInstances', {});
    const row = (await x.test.instanceItems()).find((r) => r.id === `instance-${id}`);
    assert.ok(row, 'the instance is in the view');
    const lead = String(row.description).split(' · ').slice(0, 2).join(' · ');
    assert.match(lead, /^running · \$\d+\.\d+\/h$/);
    const line = text.split('\n').find((l) => l.startsWith(`#${id} `));
    assert.ok(line, `#${id} is listed:\n${text}`);
    assert.ok(line.includes(`: ${lead}`), `"${line}" says what the view's row says (${lead})`);
    assert.match(text.split('\n')[0]!, /^(1 instance; it bills|\d+ instances; together they bill) \$\d+\.\d+\/h now/);
  });

  it("shows a job's status and the end of its output, and the account's credit and spend", async () => {
    const x = await extensionApi();
    const started = (await vscode.commands.executeCommand('gpuRental.runJob', id, {
      command: 'for i in 1 2 3 4; do echo "line $i"; done; printf "\\033[31mred\\033[0m [x](command:evil)\\n"',
      uploadFirst: false,
      cwd: JOBS,
      stopAtEnd: false,
      resumable: false,
    })) as { jobId: string };
    await eventually(() => x.test.jobOutput(started.jobId)?.includes('command:evil'), 'the job to write its output', 30_000);
    const text = await eventually(async () => {
      const t = await invoke('gpuRental_jobOutput', { instanceId: id, jobId: started.jobId, lines: 3 });
      return /exited 0/.test(t) ? t : undefined;
    }, 'the job to end');
    const lines = text.split('\n');
    assert.match(lines[0]!, new RegExp(`^Job ${started.jobId} ".*" on .*#${id}\\): exited 0.*The last 3 lines of its output:$`));
    assert.deepEqual(lines.slice(1, 3), ['line 3', 'line 4']);
    assert.equal(lines[3], '\\u001B[31mred\\u001B[0m [x]\\(command:evil)', 'machine text through visibleText: escapes shown, no link');
    const listed = await invoke('gpuRental_listInstances', {});
    assert.match(listed, new RegExp(`  job ${started.jobId} ".*": exited 0`));

    const account = await invoke('gpuRental_account', {});
    const credit = x.test.session().user?.credit;
    assert.ok(typeof credit === 'number');
    assert.match(account, new RegExp(`^Credit: ${formatDollars(credit).replace('$', '\\$')}\\.$`, 'm'));
    assert.match(account, /^Spending now: \$\d+\.\d+\/h/m);
    assert.match(account, /^Spend limit: /m);
  });

  it('uploads a workspace folder and runs a job on it through the tools; a folder outside the workspace is refused', async () => {
    const x = await extensionApi();
    // The remote folder is asked as the palette asks it: its proposal is taken.
    x.test.answerPrompts({ confirm: async () => true, input: async (o) => o.value });
    const name = `itest-agent-upload-${process.pid}`;
    const local = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, name);
    await mkdir(local, { recursive: true });
    await writeFile(join(local, 'hello.txt'), 'hello from the workspace\n');
    try {
      assert.match(
        await failure('gpuRental_uploadFolder', { instanceId: id, folder: '/etc' }),
        /^Only a workspace folder or a folder inside one can be uploaded; \/etc is outside\.$/,
      );
      const uploaded = await invoke('gpuRental_uploadFolder', { instanceId: id, folder: name });
      const remote = new RegExp(`^Uploaded .*${name} to .*: it is in (/\\S+) there\\.$`).exec(uploaded)?.[1];
      assert.ok(remote, uploaded);
      const started = await invoke('gpuRental_runJob', { instanceId: id, command: `cat ${remote}/hello.txt`, stopAtEnd: false });
      const jobId = /^Started job (\S+) on /.exec(started)?.[1];
      assert.ok(jobId, started);
      const text = await eventually(async () => {
        const t = await invoke('gpuRental_jobOutput', { instanceId: id, jobId });
        return /exited 0/.test(t) ? t : undefined;
      }, 'the job to end');
      assert.equal(text.split('\n').at(-1), 'hello from the workspace', 'the job read the file the upload sent');
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  });

  it("checks a machine's health as Check Machine Health does, and names the destroy tool only for a machine that is not what was offered", async () => {
    const text = await invoke('gpuRental_checkHealth', { instanceId: id });
    assert.match(text, new RegExp(`#${id}`), text);
    assert.doesNotMatch(text, /gpuRental_destroyInstance/, 'the simulator machine is what was offered');
  });

  it("a rent through the tool shows GPU Rental's confirmation with the price, and rents nothing when declined", async () => {
    const x = await extensionApi();
    const offer = await freshOffer();
    const label = uniqueLabel();
    const asked: Array<{ message: string; detail: string }> = [];
    x.test.answerPrompts({ confirm: async (message, detail) => (asked.push({ message, detail }), false) });
    const text = await invoke('gpuRental_rentOffer', { offerId: offer.id, label });
    assert.match(text, /^Nothing was done: the person declined in GPU Rental's confirmation\./);
    assert.equal(asked.length, 1, 'GPU Rental asked once, as for a plan automation passes');
    assert.match(`${asked[0]!.message}\n${asked[0]!.detail}`, /\$\d+\.\d+\/h/);
    assert.equal((await instancesLabelled(label)).length, 0, 'nothing rented');
  });

  it('two calls at once rent once: the second is refused while the first holds the rent', async () => {
    const offer = await freshOffer();
    const label = uniqueLabel();
    const settled = await Promise.allSettled([
      invoke('gpuRental_rentOffer', { offerId: offer.id, label }),
      invoke('gpuRental_rentOffer', { offerId: offer.id, label }),
    ]);
    const made = await instancesLabelled(label);
    try {
      assert.equal(made.length, 1, 'exactly one instance');
      const ok = settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<string>).value);
      const refused = settled.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason));
      assert.equal(ok.length, 1, JSON.stringify(settled));
      assert.match(ok[0]!, new RegExp(`^Rented: instance #${made[0]!.id}, labelled "${label}", billing \\$\\d+\\.\\d+/h from now`));
      results.push(...refused);
      assert.match(refused[0]!, /Another rent is in progress in this window, so this call rented nothing/);
    } finally {
      for (const m of made) await api('DELETE', `/api/v0/instances/${m.id}/`, sim.key);
    }
  });

  it('a destroy through the tool asks first: declined, the instance stays; accepted, it goes', async () => {
    const x = await extensionApi();
    const target = await rentedAndRunning({ label: uniqueLabel() });
    await x.test.refreshInstances();
    const asked: string[] = [];
    // Only the destroy is declined (an SSH key question on the way, if any, is answered yes).
    const isDestroy = (message: string) => /^Destroy /.test(message);
    x.test.answerPrompts({
      confirm: async (message) => (isDestroy(message) && asked.push(message), !isDestroy(message)),
      choose: async (message) => (asked.push(message), undefined),
    });
    assert.match(await invoke('gpuRental_destroyInstance', { instanceId: target }), /declined/);
    assert.match(asked[0] ?? '', new RegExp(`^Destroy .*#${target}`));
    assert.equal(await instanceStatus(target), 'running', 'still there');
    x.test.answerPrompts({ confirm: async () => true, choose: async (_m, _d, actions) => actions.find((a) => a === 'Destroy') });
    assert.match(await invoke('gpuRental_destroyInstance', { instanceId: target }), /destroyed/i);
    await eventually(async () => (await instanceStatus(target)) == null, 'the instance to go');
    assert.match(await failure('gpuRental_stopInstance', { instanceId: target }), /is not in the account|is gone|destroyed/);
  });

  it("stop and start go through the palette's flows: the spend limit refuses a start, and says so to the model", async () => {
    const x = await extensionApi();
    assert.match(await invoke('gpuRental_stopInstance', { instanceId: id }), /stopping .*#\d+/);
    await eventually(async () => (await instanceStatus(id)) === 'stopped', 'the instance to stop', 30_000);
    await x.test.refreshInstances();
    const cfg = vscode.workspace.getConfiguration('gpuRental');
    await cfg.update('maxHourlySpend', 0.01, vscode.ConfigurationTarget.Global);
    try {
      assert.match(
        await failure('gpuRental_startInstance', { instanceId: id }),
        /^Not started: it would take the account over its spend limit/,
      );
      assert.equal(await instanceStatus(id), 'stopped', 'not started');
    } finally {
      await cfg.update('maxHourlySpend', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.match(await invoke('gpuRental_startInstance', { instanceId: id }), /starting .*It bills \$\d+\.\d+\/h once running/);
    await eventually(async () => (await instanceStatus(id)) === 'running', 'the instance to run again', 30_000);
  });

  it('without an API key, a tool says what to do instead of failing vaguely', async () => {
    await vscode.commands.executeCommand('gpuRental.signOut');
    try {
      assert.match(
        await failure('gpuRental_listInstances', {}),
        /^GPU Rental has no API key for this service\. Ask the person to run "GPU Rental: Set API Key"/,
      );
    } finally {
      await signIn();
    }
  });

  it('no result carries a secret, a link, or machine text as it was written', () => {
    assert.ok(results.length >= 10, `read ${results.length} results`);
    for (const text of results) {
      assert.ok(!text.includes(sim.key), 'the API key');
      assert.doesNotMatch(text, /PRIVATE KEY|https?:\/\/|\]\(/, text);
      // Hidden characters: controls but the line breaks between lines, bidi and zero-width ones.
      for (const line of text.split('\n')) assert.doesNotMatch(line, /[\p{Cc}\p{Cf}]/u, line);
    }
  });
});
