// A job's end sent to the Notify Me URL: the real wrapper in a simulator container, over real
// ssh, POSTing to a receiver on this machine's loopback (the containers have their own mount, PID
// and UTS namespaces but this machine's network, so 127.0.0.1 is this process). The service
// delivers only to public https addresses; the wrapper does not care about the scheme.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listJobs, startJob, stopJob } from '../../../src/core/jobs/remoteJobs';
import { newJobId, wrapperScript } from '../../../src/core/jobs/scripts';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { readFileSync } from 'node:fs';
import { containerPath, containerSuite, eventually, instanceIn, type ContainerInstance } from '../../support';

let seq = 0;
const jobId = () => newJobId(Date.UTC(2026, 10, 25, 0, 0, seq++), () => (seq % 36) / 36);

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe("jobs: a job's end reaches the Notify Me URL", function () {
  this.timeout(90_000);
  const suite = containerSuite('job-end', { seed: 47 });
  const got: Delivery[] = [];
  /** Requests to /hang are answered only when the suite ends: a receiver that never answers. */
  const hanging: ServerResponse[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url?.startsWith('/hang')) hanging.push(res);
      else res.end('ok');
    });
  });
  let base = '';
  let box: ContainerInstance;
  let target: SshTarget;
  const jobsDir = '/root/jobs-end';

  before(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    box = await suite.rent();
    target = box.target;
  });
  after(async () => {
    for (const res of hanging) res.end();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const sh = async (script: string, input?: string) => {
    const r = await runRemote(target, script, { timeoutMs: 30_000, ...(input === undefined ? {} : { input }) });
    assert.equal(r.code, 0, `${script}: ${r.stderr}`);
    return r.stdout;
  };
  const to = (path: string) => got.filter((d) => d.path === path);
  /** The one delivery to `path`, and nothing more a while after it. */
  async function onlyDelivery(path: string): Promise<Delivery> {
    const first = await eventually(() => to(path)[0], `a delivery to ${path}`, 20_000);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(to(path).length, 1, `one message to ${path}`);
    return first;
  }
  const start = (id: string, command: string, path: string, extra: { label?: string; stopAtEnd?: boolean } = {}) =>
    startJob(target, command, {
      jobId: id,
      cwd: jobsDir,
      label: extra.label ?? 'train.py --lr 3e-4',
      stopAtEnd: extra.stopAtEnd ?? false,
      ...(extra.stopAtEnd ? { baseUrl: suite.sim.url } : {}),
      jobsDir,
      notifyUrl: `${base}${path}`,
    });

  it('a job that finishes sends one text/plain line with the Title header; the URL is in a 600 file, not in cmd or run', async () => {
    await sh(`mkdir -p ${jobsDir}`);
    const id = jobId();
    await start(id, 'echo hi; exit 0', '/finished?topic=1');
    const d = await onlyDelivery('/finished?topic=1');
    assert.equal(d.body, `GPU Rental: job "train.py --lr 3e-4" on instance ${box.id} finished (exit 0)`);
    assert.equal(d.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(d.headers.title, 'GPU Rental');
    assert.equal(d.headers['x-gpu-rental-event'], 'job_end');
    assert.ok(!d.body.includes('127.0.0.1') && !d.body.includes('topic'), 'the message holds no URL');
    const dir = `${jobsDir}/${id}`;
    assert.equal(await sh(`stat -c %a ${dir}/notify`), '600\n');
    assert.equal(await sh(`cat ${dir}/notify`), `${base}/finished?topic=1\n`);
    assert.equal(await sh(`cat ${dir}/cmd`), 'echo hi; exit 0', 'cmd holds the command alone');
    assert.equal(await sh(`grep -c 127.0.0.1 ${dir}/run || true`), '0\n', 'the wrapper holds no URL');
    assert.equal(await sh(`cat ${dir}/exit`), '0\n');
  });

  it('a job that fails says its exit code; Stop Job says it was interrupted', async () => {
    await start(jobId(), 'exit 2', '/failed');
    assert.match((await onlyDelivery('/failed')).body, new RegExp(`^GPU Rental: job ".*" on instance ${box.id} failed \\(exit 2\\)$`));
    const id = jobId();
    await start(id, 'echo started; sleep 30', '/stopped');
    await eventually(async () => (await sh(`cat ${jobsDir}/${id}/log`)) === 'started\n' || undefined, 'the job to print', 10_000);
    assert.equal(await stopJob(target, id, false, { jobsDir }), true);
    assert.match((await onlyDelivery('/stopped')).body, /^GPU Rental: job ".*" on instance \d+ was interrupted$/);
  });

  it('a TERM to the wrapper, or its tmux session closed (HUP), says it was interrupted, once', async () => {
    for (const [signal, path] of [
      ['kill -TERM "$(cat "$D/wpid")"', '/term'],
      ['tmux kill-session -t "gpu-rental-${D##*/}"', '/hup'],
    ] as const) {
      const id = jobId();
      await start(id, 'sleep 30', path);
      const dir = `${jobsDir}/${id}`;
      await eventually(async () => (await sh(`test -s ${dir}/pid && echo yes || true`)) === 'yes\n' || undefined, 'the pid', 10_000);
      await sh(`D=${dir}; ${signal}`);
      assert.match((await onlyDelivery(path)).body, /^GPU Rental: job "train\.py --lr 3e-4" on instance \d+ was interrupted$/);
      await sh(`kill -KILL -- -"$(cat ${dir}/pid)" 2>/dev/null || true`);
    }
  });

  it('without curl: wget, else python3, the URL never on their command line; the label made printable', async () => {
    const dir = `${jobsDir}/by-hand`;
    const shim = '/root/shim';
    const tools = 'bash head date mv tr sed printenv mktemp rm cat sleep';
    // Each tool in the shim records its arguments, then runs the real one.
    const record = (tool: string) =>
      `printf '#!/bin/bash\\nprintf "%%s\\\\n" "$@" >>${shim}/${tool}.args\\nexec %s "$@"\\n' "$(command -v ${tool})" >${shim}/${tool} && chmod +x ${shim}/${tool}`;
    await sh(
      `mkdir -p ${dir} ${shim} && for t in ${tools}; do ln -sf "$(command -v $t)" ${shim}/$t; done && ${record('wget')} && ${record('python3')}`,
    );
    await sh(`cat >${dir}/run`, wrapperScript());
    const label = 'eval \u001b[31mred\u0007 "quoted" \\ back\u009bCSI \u00e9t\u00e9';
    for (const [tool, path] of [
      ['wget', '/by-wget'],
      ['python3', '/by-python'],
    ] as const) {
      await sh(`cd ${dir} && rm -f exit wpid && printf 'exit 0\\n' >cmd && echo ${dir} >cwd && cat >label`, `${label}\n`);
      await sh(`(umask 077 && printf '%s\\n' '${base}${path}' >${dir}/notify)`);
      if (tool === 'python3') await sh(`rm -f ${shim}/wget`);
      await sh(`PATH=${shim} bash ${dir}/run ${dir} </dev/null >/dev/null 2>&1`);
      const d = await onlyDelivery(path);
      assert.equal(d.body, `GPU Rental: job "eval  [31mred  "quoted" \\ back CSI \u00e9t\u00e9" on instance ${box.id} finished (exit 0)`);
      assert.equal(d.headers.title, 'GPU Rental');
      assert.equal(d.headers['x-gpu-rental-event'], 'job_end');
      const args = await sh(`cat ${shim}/${tool}.args`);
      assert.ok(args.length > 0, `${tool} ran`);
      assert.ok(!args.includes(path) && !args.includes('127.0.0.1'), `the URL is not among ${tool}'s arguments:\n${args}`);
    }
  });

  it('no notify file, no message; a receiver that never answers delays neither the exit file nor the stop at the end', async () => {
    const quiet = jobId();
    await startJob(target, 'exit 0', { jobId: quiet, cwd: jobsDir, label: 'quiet', stopAtEnd: false, jobsDir });
    await eventually(
      async () => (await listJobs(target, { jobsDir })).find((s) => s.jobId === quiet && s.exitCode === 0),
      'it ends',
      15_000,
    );
    const before = got.length;
    const id = jobId();
    await start(id, 'exit 0', '/hang', { stopAtEnd: true });
    await eventually(() => hanging[0], 'the message to arrive', 15_000);
    const arrived = Math.floor(Date.now() / 1000);
    await instanceIn(suite.client, box.id, 'stopped', 30_000);
    assert.equal(got.length, before + 1, 'the quiet job sent nothing; this one sent one message');
    // The stop is asked 2 s after the end; had the wrapper waited for the message, it would be 15 s (curl's limit) after it arrived.
    const file = (name: string) => Number(readFileSync(containerPath(suite.sim, box.id, `${jobsDir}/${id}/${name}`), 'utf8'));
    assert.ok(file('ended') <= arrived, 'the exit was recorded before the message arrived');
    assert.ok(
      file('stop-asked') < arrived + 15,
      `the stop was asked ${file('stop-asked') - arrived} s after the message arrived, not after its answer`,
    );
  });
});
