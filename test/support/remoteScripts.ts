// Every script the extension sends to an instance, generated with representative parameters
// (hostile ones where a value comes from the user or the instance), for the static checks in
// test/unit/remoteScripts.test.ts. Each entry names the builder it called, so that the test can
// tell a builder nobody generates here.
import { withWatchdog, watchdogScript } from '../../src/core/idle/watchdog';
import { healthScript } from '../../src/core/health/probe';
import { JUPYTER_LIST_COMMAND } from '../../src/core/jupyter/servers';
import * as browserScripts from '../../src/core/browserWorkspace/scripts';
import { CHECKPOINT_FUNCTIONS } from '../../src/core/jobs/resumeScripts';
import { LAUNCH_FUNCTION, launchLines, WRAPPER_UP_FUNCTION } from '../../src/core/jobs/launch';
import { mkdirScript, verifyScript } from '../../src/core/jobs/outbidVerify';
import { bashCommand } from '../../src/core/shell';
import type { ResumableJob, ResumeSpec } from '../../src/core/jobs/resumable';
import { folderExistsScript, resumeHook, resumeScript, runResumeScript, setPolicyScript } from '../../src/core/jobs/resumeScripts';
import {
  followScript,
  jobDir,
  listScript,
  pythonCommand,
  readLogScript,
  startScript,
  stopScript,
  wrapperScript,
} from '../../src/core/jobs/scripts';
import { exportLines, interfaceAddressScript, type ClusterLayout } from '../../src/core/jobs/cluster/env';
import {
  daemonStartScript,
  daemonStopScript,
  nodeProbeScript,
  pullScript,
  waitingPullScript,
} from '../../src/core/jobs/cluster/fanoutScripts';
import { writeHostfileLines } from '../../src/core/jobs/cluster/hostfile';
import { allReduceScript, stopScript as allReduceStopScript, torchCheckScript } from '../../src/core/jobs/cluster/preflightAllReduce';
import { probeScript } from '../../src/core/jobs/cluster/preflightScripts';
import { presetLines, PRESET_IDS, type ClusterRun } from '../../src/core/jobs/cluster/presets';
import { rankScript } from '../../src/core/jobs/cluster/rankScript';
import { listCommand, probeCommand, sizeCommand, diskFreeCommand } from '../../src/core/transfer/remotePath';
import { rsyncUploadArgv, tarPackRemoteCommand, tarUnpackRemoteCommand } from '../../src/core/transfer/argv';
import { remoteIndexCommand } from '../../src/core/transfer/quickCheck';
import { digestCommand } from '../../src/core/transfer/sftp';

/** The shell a script runs in: bash (`bash -c`, a `#!/bin/bash` file, the start-up script) or the login shell, taken as POSIX sh. */
export type Dialect = 'bash' | 'sh';

export interface GeneratedScript {
  /** A file name for it: unique, letters, digits, dots and dashes. */
  readonly name: string;
  /** `module.builder` that made it, e.g. `jobs/scripts.startScript`. */
  readonly builder: string;
  readonly dialect: Dialect;
  readonly text: string;
}

/** A value a user types or an instance reports, with everything a shell reads specially. */
export const HOSTILE = `it's "a" $(touch /tmp/pwned) \`id\` $HOME;\nrm -rf / *`;
/** The same without a line break or control character, for values that refuse those. */
export const HOSTILE_LINE = `it's "a" $(touch /tmp/pwned) \`id\` $HOME; rm -rf / * \\`;

/** A checkpoint's name: one path segment, anything but a slash. */
export const HOSTILE_NAME = `step-3 it's "a" $(id) \`id\` $HOME;\n* \\`;

const JOB = '20261124-001611-k3f9q2';
const JOBS_DIR = `/tmp/job's dir $(x)`;

const spec = (policy: ResumeSpec['policy']): ResumeSpec => ({
  checkpointDir: `ckpt ${HOSTILE_LINE}`,
  resumeCommand: `python3 train.py --resume {latest} ${HOSTILE}`,
  policy,
});

const layout: ClusterLayout = {
  nodes: [
    { address: '10.0.0.1', gpus: 8 },
    { address: '10.0.0.2', gpus: 8 },
  ],
  masterPort: 29500,
};

const runs: Record<(typeof PRESET_IDS)[number], ClusterRun[]> = {
  torchrun: [
    { preset: 'torchrun', script: `my dir/train's.py`, args: '--lr 3e-4 --name "a b"' },
    { preset: 'torchrun', script: '-train.py', legacyTorch: true },
    { preset: 'torchrun', script: 'train.py', legacyTorch: false },
  ],
  'torchrun-c10d': [{ preset: 'torchrun-c10d', script: `$(x) train.py`, args: '--epochs 3' }],
  accelerate: [{ preset: 'accelerate', script: 'train.py', args: '--mixed_precision bf16' }],
  deepspeed: [{ preset: 'deepspeed', script: `it's.py`, args: '--deepspeed ds.json' }],
  ray: [{ preset: 'ray', script: 'tune.py', args: '--trials 8' }],
  custom: [{ preset: 'custom', command: 'python3 -m torch.distributed.run --nnodes=$NNODES train.py' }],
};

const job: ResumableJob = {
  instanceId: 7,
  jobId: JOB,
  label: HOSTILE,
  cwd: HOSTILE_LINE,
  spec: spec({ kind: 'move', ceiling: 1.5 }),
  checkpointPath: `/root/ckpt ${HOSTILE_LINE}`,
  jobPath: `/root/.gpu-rental/jobs/${JOB}`,
  onDemandPerHour: 2,
  recoveries: [],
  latest: { name: HOSTILE_NAME, bytes: 10, files: 1, digest: 'a'.repeat(64), modifiedAt: 1_700_000_000 },
  ended: false,
};

/** Every script, in a fixed order. */
export function generatedScripts(): GeneratedScript[] {
  const out: GeneratedScript[] = [];
  const add = (name: string, builder: string, dialect: Dialect, text: string) => out.push({ name, builder, dialect, text });

  // Jobs (all run by `bash -c`; the wrapper and `resume` are files run by bash).
  add('job-wrapper', 'jobs/scripts.wrapperScript', 'bash', wrapperScript());
  const start = { jobId: JOB, cwd: HOSTILE, label: HOSTILE, stopAtEnd: true, baseUrl: 'https://console.vast.ai/' };
  add('job-start', 'jobs/scripts.startScript', 'bash', startScript(start));
  add(
    'job-start-plain',
    'jobs/scripts.startScript',
    'bash',
    startScript({ ...start, stopAtEnd: false, forceSetsid: true, jobsDir: JOBS_DIR }),
  );
  for (const policy of [{ kind: 'wait' }, { kind: 'raise', ceiling: 0.5 }, { kind: 'move', ceiling: 3 }] as const) {
    add(
      `job-start-resumable-${policy.kind}`,
      'jobs/resumeScripts.resumableStartLines',
      'bash',
      startScript({ ...start, resumable: { spec: spec(policy), onDemandPerHour: 1.25, createCheckpointDir: policy.kind === 'raise' } }),
    );
  }
  add('job-list', 'jobs/scripts.listScript', 'bash', listScript());
  add('job-list-dir', 'jobs/scripts.listScript', 'bash', listScript(JOBS_DIR));
  add('job-follow', 'jobs/scripts.followScript', 'bash', followScript(JOB, 1234, JOBS_DIR));
  add('job-stop', 'jobs/scripts.stopScript', 'bash', stopScript(JOB, true));
  add('job-stop-keep', 'jobs/scripts.stopScript', 'bash', stopScript(JOB, false, JOBS_DIR));
  add('job-read-log', 'jobs/scripts.readLogScript', 'bash', readLogScript(JOB, 99, JOBS_DIR));
  add('job-python', 'jobs/scripts.pythonCommand', 'bash', `${pythonCommand(`-my dir/${HOSTILE_LINE}.py`)}\n`);
  add('job-launch', 'jobs/launch.launchLines', 'bash', [`D=${jobDir(JOB)}`, ...launchLines(JOB, false), ''].join('\n'));
  add('job-launch-function', 'jobs/launch.LAUNCH_FUNCTION', 'bash', `D=/tmp/x/${JOB}\n${LAUNCH_FUNCTION}\nlaunch setsid\n`);
  add('job-wrapper-up', 'jobs/launch.WRAPPER_UP_FUNCTION', 'bash', `${WRAPPER_UP_FUNCTION}\nup "$1"\n`);
  add(
    'job-checkpoint-functions',
    'jobs/resumeScripts.CHECKPOINT_FUNCTIONS',
    'bash',
    `${CHECKPOINT_FUNCTIONS}\nnw "$1"; ms "$1/$NN"; hx "$NN"; dx "$2"\n`,
  );
  add('job-resume', 'jobs/resumeScripts.resumeScript', 'bash', resumeScript(JOB));
  add('job-resume-setsid', 'jobs/resumeScripts.resumeScript', 'bash', resumeScript(JOB, true));
  add('job-resume-hook', 'jobs/resumeScripts.resumeHook', 'bash', resumeHook());
  add('job-run-resume', 'jobs/resumeScripts.runResumeScript', 'bash', runResumeScript(jobDir(JOB, JOBS_DIR), 42, HOSTILE_NAME));
  add('job-run-resume-plain', 'jobs/resumeScripts.runResumeScript', 'bash', runResumeScript(jobDir(JOB)));
  add('job-folder-exists', 'jobs/resumeScripts.folderExistsScript', 'bash', folderExistsScript(HOSTILE, HOSTILE));
  add('job-set-policy', 'jobs/resumeScripts.setPolicyScript', 'bash', setPolicyScript(jobDir(JOB), { kind: 'raise', ceiling: 2.5 }));
  add('job-bash-command', 'shell.bashCommand', 'sh', `${bashCommand(listScript(JOBS_DIR))}\n`);
  add('move-mkdir', 'jobs/outbidVerify.mkdirScript', 'bash', `${mkdirScript([`/root/${HOSTILE}`, '/workspace/x'])}\n`);
  add('move-verify', 'jobs/outbidVerify.verifyScript', 'bash', `${verifyScript(job)}\n`);
  add('move-verify-none', 'jobs/outbidVerify.verifyScript', 'bash', `${verifyScript({ ...job, latest: undefined })}\n`);

  // Cluster jobs (every script runs by `bash -c`; a rank's script is a job's `cmd`, run by bash).
  for (const preset of PRESET_IDS)
    runs[preset].forEach((run, i) => {
      for (const rank of [0, 1]) {
        const text = rankScript({ layout, rank, jobId: JOB, run, ...(i === 0 ? {} : { jobsDir: JOBS_DIR }) });
        add(`cluster-rank-${preset}-${i}-${rank}`, 'cluster/rankScript.rankScript', 'bash', text);
      }
    });
  add('cluster-preset-lines', 'cluster/presets.presetLines', 'bash', `${presetLines(runs.ray[0]!, layout, 1, JOB).join('\n')}\n`);
  add(
    'cluster-export-lines',
    'cluster/env.exportLines',
    'bash',
    `${exportLines([
      ['NODE_IPS', `10.0.0.1\n10.0.0.2`],
      ['X', HOSTILE],
    ]).join('\n')}\n`,
  );
  add('cluster-hostfile-lines', 'cluster/hostfile.writeHostfileLines', 'bash', `${writeHostfileLines(layout, JOB, JOBS_DIR).join('\n')}\n`);
  add('cluster-interface-address', 'cluster/env.interfaceAddressScript', 'bash', interfaceAddressScript());
  add('cluster-interface-address-lo', 'cluster/env.interfaceAddressScript', 'bash', interfaceAddressScript('lo'));
  add('cluster-node-probe', 'cluster/fanoutScripts.nodeProbeScript', 'bash', nodeProbeScript());
  add(
    'cluster-daemon-start',
    'cluster/fanoutScripts.daemonStartScript',
    'bash',
    daemonStartScript({ folder: '/tmp/gpu-rental-fanout-abc123', address: '10.0.0.1' })!,
  );
  add('cluster-daemon-stop', 'cluster/fanoutScripts.daemonStopScript', 'bash', daemonStopScript('/tmp/gpu-rental-fanout-abc123'));
  add(
    'cluster-pull',
    'cluster/fanoutScripts.pullScript',
    'bash',
    `${pullScript({ address: '10.0.0.1', port: 28730, remoteDir: `/root/${HOSTILE}` })!}\n`,
  );
  add(
    'cluster-pull-waiting',
    'cluster/fanoutScripts.waitingPullScript',
    'bash',
    `${waitingPullScript({ address: '10.0.0.1', remoteDir: `/root/${HOSTILE}` })!}\n`,
  );
  add('cluster-probe-reach', 'cluster/preflightScripts.probeScript', 'bash', probeScript(['reach', 0, 29400, 10, '10.0.0.1', '10.0.0.2']));
  add('cluster-probe-send', 'cluster/preflightScripts.probeScript', 'bash', probeScript(['send', 29400, 10, 1, '10.0.0.1', 1e8, 5]));
  add('cluster-torch-check', 'cluster/preflightAllReduce.torchCheckScript', 'bash', torchCheckScript(29431, 1));
  add(
    'cluster-allreduce',
    'cluster/preflightAllReduce.allReduceScript',
    'bash',
    allReduceScript({ rank: 1, world: 2, master: '10.0.0.1', port: 29431, backend: 'nccl', bytes: 16 << 20, wait: 20, iface: 'eth0' }),
  );
  add('cluster-allreduce-stop', 'cluster/preflightAllReduce.stopScript', 'bash', allReduceStopScript(29431, 1));

  // The health check runs as ssh's command: the login shell, taken as POSIX sh.
  add('health', 'health/probe.healthScript', 'sh', `${healthScript('n0nce')}\n`);
  add(
    'health-speed',
    'health/probe.healthScript',
    'sh',
    `${healthScript('n0nce', { speedTestUrl: 'https://speed.cloudflare.com/__down?bytes=25000000&a=$(x)', writeMiB: 64 })}\n`,
  );
  add('health-bad-url', 'health/probe.healthScript', 'sh', `${healthScript(HOSTILE, { speedTestUrl: HOSTILE })}\n`);

  // The start-up script (the service runs it with bash): the watchdog, the resume hook, the user's own.
  const dog = { baseUrl: 'https://console.vast.ai', idleMinutes: 30, gpuThreshold: 5 };
  add('idle-watchdog', 'idle/watchdog.watchdogScript', 'bash', watchdogScript(dog));
  add(
    'idle-onstart',
    'idle/watchdog.withWatchdog',
    'bash',
    withWatchdog(`${resumeHook()}echo my own script\n`, { ...dog, checkSeconds: 5 }),
  );

  // Transfers and Jupyter: ssh's command, run by the login shell.
  add('transfer-list', 'transfer/remotePath.listCommand', 'sh', `${listCommand(`/root/${HOSTILE}`)}\n`);
  add('transfer-probe', 'transfer/remotePath.probeCommand', 'sh', `${probeCommand(`/root/${HOSTILE}`, true)}\n`);
  add('transfer-probe-tools', 'transfer/remotePath.probeCommand', 'sh', `${probeCommand(undefined, false)}\n`);
  add('transfer-size', 'transfer/remotePath.sizeCommand', 'sh', `${sizeCommand(`/root/${HOSTILE}`)}\n`);
  add('transfer-disk-free', 'transfer/remotePath.diskFreeCommand', 'sh', `${diskFreeCommand(`/root/${HOSTILE}`)}\n`);
  add('transfer-tar-unpack', 'transfer/argv.tarUnpackRemoteCommand', 'sh', `${tarUnpackRemoteCommand(`/root/${HOSTILE}`, true)}\n`);
  add('transfer-tar-pack', 'transfer/argv.tarPackRemoteCommand', 'sh', `${tarPackRemoteCommand(`/root/${HOSTILE}`, HOSTILE, true)}\n`);
  add(
    'transfer-tar-pack-exclude',
    'transfer/argv.tarPackRemoteCommand',
    'sh',
    `${tarPackRemoteCommand(`/root/${HOSTILE}`, HOSTILE, false, [`${HOSTILE}/big*[1].bin`])}\n`,
  );
  add('transfer-index', 'transfer/quickCheck.remoteIndexCommand', 'sh', `${remoteIndexCommand(`/root/${HOSTILE}`)}\n`);
  add(
    'transfer-tar-unpack-listed',
    'transfer/argv.tarUnpackRemoteCommand',
    'sh',
    `${tarUnpackRemoteCommand(`/root/${HOSTILE}`, false, remoteIndexCommand(`/root/${HOSTILE}`))}\n`,
  );
  add('transfer-digest', 'transfer/sftp.digestCommand', 'sh', `${digestCommand(`-x/${HOSTILE}`)}\n`);
  const target = { alias: 'gpu-rental-7', instanceId: 7, args: ['-F', '/dev/null'] };
  const rsyncPath = rsyncUploadArgv(target, { localDir: '/tmp/x', remoteDir: `/root/${HOSTILE}`, excludes: [] })
    .find((a) => a.startsWith('--rsync-path='))!
    .slice('--rsync-path='.length);
  add('transfer-rsync-path', 'transfer/argv.rsyncUploadArgv', 'sh', `${rsyncPath}\n`);
  add('jupyter-list', 'jupyter/servers.JUPYTER_LIST_COMMAND', 'sh', `${JUPYTER_LIST_COMMAND}\n`);
  // Open in Browser: bash bodies (bashCommand), their parameters a user's settings or fixed names.
  const sha = 'e'.repeat(64);
  const url = 'https://h.test/a/code-server-4.139.1-linux-amd64.tar.gz';
  add(
    'browser-install',
    'browserWorkspace/scripts.installScript',
    'bash',
    browserScripts.installScript({ url, sha256: sha, folderName: 'code-server-4.139.1-linux-amd64' }),
  );
  add(
    'browser-start',
    'browserWorkspace/scripts.startScript',
    'bash',
    browserScripts.startScript({ version: '4.139.1', cookieSuffix: 'gpu-rental-7' }),
  );
  add('browser-stop', 'browserWorkspace/scripts.stopScript', 'bash', browserScripts.stopScript({ stateDir: `/tmp/${HOSTILE_LINE}` }));
  return out;
}
