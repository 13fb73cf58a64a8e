import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  call,
  clientFor,
  containerPath,
  DEMO_KEY,
  eventually,
  startSimulator,
  type Marketplace,
  instanceIn,
  processesWith,
  rentOne,
} from '../../support';

/** The file's text, or '' while it does not exist yet. */
const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

describe('marketplace: start-up scripts run as local processes', function () {
  this.timeout(30_000);
  let sim: Marketplace;
  let bin: string;
  before(async () => {
    bin = mkdtempSync(join(tmpdir(), 'gpu-rental-fakebin-'));
    writeFileSync(join(bin, 'nvidia-smi'), '#!/bin/sh\necho 87\n');
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
    sim = await startSimulator({ onstart: true, onstartPath: [bin], bootSeconds: 0.2 });
  });
  after(() => sim.stop());

  const api = () => clientFor(sim.url, DEMO_KEY).client;
  // Each rent takes the next listed offer, so no two tests share a machine's state.
  let nextOffer = 0;
  async function rent(onstart: string, env?: Record<string, string>): Promise<number> {
    const [offer] = await api().offers.search({
      query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
      limit: 1,
      offset: nextOffer++ % 50,
    } as never);
    const { instanceId } = await api().instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, onstart, env });
    await instanceIn(api(), instanceId, 'running', 10_000);
    return instanceId;
  }

  it('runs with the container variables, the user env and the extra PATH first; its output reaches the log', async () => {
    const id = await rent(
      `echo "id=$CONTAINER_ID label=$VAST_CONTAINERLABEL key=\${#CONTAINER_API_KEY} mine=$MY_VAR gpu=$(nvidia-smi) home=$HOME" > ~/env.txt; echo hello from onstart`,
      { MY_VAR: 'seven' },
    );
    const text = await eventually(async () => read(containerPath(sim, id, '/root/env.txt')).trim() || undefined, 'the env file', 10_000);
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
    // A sleep no other process on this machine runs: the container's pids are not the host's.
    const token = `1000.${process.pid}${Date.now() % 1000}`;
    const id = await rent(`sleep ${token} & echo $! >> ~/pids.txt; wait`);
    const pids = () =>
      read(containerPath(sim, id, '/root/pids.txt'))
        .trim()
        .split('\n');
    await eventually(async () => pids()[0] || undefined, 'the pid', 5_000);
    await eventually(async () => processesWith(token) === 1 || undefined, 'the child to run', 5_000);
    await api().instances.stop(id);
    await eventually(async () => processesWith(token) === 0 || undefined, 'the child to die', 5_000);
    await api().instances.start(id);
    // The simulator moves instances along when they are looked at, as the extension's poller does.
    await eventually(async () => (await api().instances.show(id), pids().length === 2 || undefined), 'a second run', 10_000);
    await eventually(async () => processesWith(token) === 1 || undefined, 'the second child to run', 5_000);
    await api().instances.destroy(id);
    await eventually(async () => processesWith(token) === 0 || undefined, 'destroy kills it', 5_000);
  });

  it('runs again on every start: after a stop and start, an outbid and its resume, and a reboot', async () => {
    // An interruptible rent, so that the service can outbid it and resume it by itself.
    const { id } = await rentOne(sim, { image: 'ubuntu:22.04', disk: 8, onstart: 'echo "boot $$" >> /root/boots.txt', price: 5 });
    const boots = () =>
      read(containerPath(sim, id, '/root/boots.txt'))
        .split('\n')
        .filter(Boolean).length;
    // The simulator moves instances along when they are looked at, as the extension's poller does.
    const booted = (n: number, what: string) =>
      eventually(async () => (await api().instances.show(id), boots() === n || undefined), what, 10_000);
    await booted(1, 'the first run');
    await api().instances.stop(id);
    await instanceIn(api(), id, 'stopped', 5_000);
    await api().instances.start(id);
    await booted(2, 'a run after stop and start');
    sim.control.outbid(id);
    await instanceIn(api(), id, 'stopped', 5_000);
    assert.equal(boots(), 2, 'an outbid instance runs nothing');
    assert.deepEqual(sim.control.lowerBids(id).resumed, [id]);
    await booted(3, 'a run after the outbid instance resumed by itself');
    await instanceIn(api(), id, 'running', 5_000);
    assert.equal((await call(sim, 'PUT', `/api/v0/instances/reboot/${id}/`, {})).status, 200);
    await booted(4, 'a run after a reboot');
    await api().instances.destroy(id);
  });

  it('lets a script stop its own instance with CONTAINER_API_KEY, and that key reaches nothing else', async () => {
    const other = await rent('true');
    const id = await rent(
      `printf %s "$CONTAINER_API_KEY" > ~/key.txt; sleep 1; node -e 'fetch(process.argv[1], {method: "PUT", headers: {authorization: "Bearer " + process.env.CONTAINER_API_KEY, "content-type": "application/json"}, body: JSON.stringify({state: "stopped"})}).then(r => console.log("stop answered", r.status))' "${'$'}{URL}/api/v0/instances/$CONTAINER_ID/"`,
      { URL: sim.url },
    );
    await instanceIn(api(), id, 'stopped', 10_000);
    const key = read(containerPath(sim, id, '/root/key.txt'));
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
