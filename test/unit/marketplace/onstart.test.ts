import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFor, DEMO_KEY, eventually, startSimulator, type Marketplace, instanceIn } from '../../support';

/** The file's text, or '' while it does not exist yet. */
const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('marketplace: start-up scripts run as local processes', function () {
  this.timeout(30_000);
  let sim: Marketplace;
  let out: string;
  let bin: string;
  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'gpu-rental-onstart-test-'));
    bin = mkdtempSync(join(tmpdir(), 'gpu-rental-fakebin-'));
    writeFileSync(join(bin, 'nvidia-smi'), '#!/bin/sh\necho 87\n');
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
    sim = await startSimulator({ onstart: true, onstartPath: [bin], bootSeconds: 0.2 });
  });
  after(() => sim.stop());

  const api = () => clientFor(sim.url, DEMO_KEY).client;
  async function rent(onstart: string, env?: Record<string, string>): Promise<number> {
    const [offer] = await api().offers.search({
      query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
      limit: 1,
      offset: Math.floor(Math.random() * 50),
    } as never);
    const { instanceId } = await api().instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, onstart, env });
    await instanceIn(api(), instanceId, 'running', 10_000);
    return instanceId;
  }

  it('runs with the container variables, the user env and the extra PATH first; its output reaches the log', async () => {
    const file = join(out, 'env.txt');
    const id = await rent(
      `echo "id=$CONTAINER_ID label=$VAST_CONTAINERLABEL key=\${#CONTAINER_API_KEY} mine=$MY_VAR gpu=$(nvidia-smi) home=$HOME" > ${file}; echo hello from onstart`,
      { MY_VAR: 'seven' },
    );
    const text = await eventually(async () => read(file).trim() || undefined, 'the env file', 10_000);
    assert.match(text, new RegExp(`^id=${id} label=C\\.${id} key=\\d+ mine=seven gpu=87 home=/\\S+$`));
    assert.doesNotMatch(text, /key=0 /, 'the instance key is there');
    await eventually(
      async () => (await api().instances.logs(id, {})).includes('onstart stdout: hello from onstart') || undefined,
      'the output in the log',
      5_000,
    );
    await api().instances.destroy(id);
  });

  it('kills the script and its children on stop, and runs it again on start', async () => {
    const pids = join(out, 'pids.txt');
    const id = await rent(`sleep 1000 & echo $! >> ${pids}; wait`);
    const first = Number(await eventually(async () => read(pids).trim().split('\n')[0] || undefined, 'the pid', 5_000));
    assert.ok(alive(first));
    await api().instances.stop(id);
    await eventually(async () => !alive(first) || undefined, 'the child to die', 5_000);
    await api().instances.start(id);
    // The simulator moves instances along when they are looked at, as the extension's poller does.
    await eventually(
      async () => (await api().instances.show(id), read(pids).trim().split('\n').length === 2 || undefined),
      'a second run',
      10_000,
    );
    const second = Number(read(pids).trim().split('\n')[1]);
    assert.ok(alive(second));
    await api().instances.destroy(id);
    await eventually(async () => !alive(second) || undefined, 'destroy kills it', 5_000);
  });

  it('lets a script stop its own instance with CONTAINER_API_KEY, and that key reaches nothing else', async () => {
    const keyFile = join(out, 'key.txt');
    const other = await rent('true');
    const id = await rent(
      `printf %s "$CONTAINER_API_KEY" > ${keyFile}; sleep 1; node -e 'fetch(process.argv[1], {method: "PUT", headers: {authorization: "Bearer " + process.env.CONTAINER_API_KEY, "content-type": "application/json"}, body: JSON.stringify({state: "stopped"})}).then(r => console.log("stop answered", r.status))' "${'$'}{URL}/api/v0/instances/$CONTAINER_ID/"`,
      { URL: sim.url },
    );
    await instanceIn(api(), id, 'stopped', 10_000);
    const key = read(keyFile);
    const own = clientFor(sim.url, key).client;
    assert.equal((await own.instances.show(id)).id, id);
    await assert.rejects(own.instances.stop(other), (e: { kind?: string }) => e.kind === 'forbidden');
    await api().instances.destroy(id);
    await assert.rejects(
      own.instances.show(id),
      (e: { kind?: string }) => e.kind === 'auth' || e.kind === 'forbidden' || e.kind === 'not_found',
    );
    await api().instances.destroy(other);
  });
});
