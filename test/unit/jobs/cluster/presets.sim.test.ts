// Golden command lines of every cluster preset for rank 0 and rank 1 of 2 nodes × 8 GPUs, the
// whole script a node runs, the quoting of the script's path, and what a preset refuses.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterLayout } from '../../../../src/core/jobs/cluster/env';
import {
  DEFAULT_PRESET,
  PRESET_IDS,
  presetDetail,
  presetLabel,
  presetLines,
  type ClusterRun,
} from '../../../../src/core/jobs/cluster/presets';
import { rankScript, runLabel } from '../../../../src/core/jobs/cluster/rankScript';

const JOB = '20261124-001611-k3f9q2';

/** 2 nodes × 8 GPUs on the overlay, rendezvous on 29500. */
const TWO_BY_EIGHT: ClusterLayout = {
  nodes: [
    { address: '10.0.0.1', gpus: 8 },
    { address: '10.0.0.2', gpus: 8 },
  ],
  masterPort: 29500,
};

const lines = (run: ClusterRun, rank: number) => presetLines(run, TWO_BY_EIGHT, rank, JOB);

/** The line that lets a node add torchrun's flags for Debian's torch 1.13 (checked by running it below). */
const CHECK =
  'GPU_RENTAL_TORCHRUN_FLAGS=$(python3 -c \'import sys, torch; print("--redirects=1 --tee=1" if int(torch.__version__.split(".")[0]) < 2 and sys.version_info >= (3, 11) else "")\' 2>/dev/null)';

const STATIC =
  '--nnodes=$NNODES --node_rank=$NODE_RANK --nproc_per_node=$NPROC_PER_NODE --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT';

describe('cluster jobs: the presets, rank 0 and rank 1 of 2 × 8 GPUs', () => {
  it('torchrun (the default): a static rendezvous on rank 0, the same line on every rank', () => {
    assert.equal(DEFAULT_PRESET, 'torchrun');
    const run: ClusterRun = { preset: 'torchrun', script: 'train.py', args: '--lr 3e-4' };
    const line = `torchrun $GPU_RENTAL_TORCHRUN_FLAGS ${STATIC} train.py --lr 3e-4`;
    assert.deepEqual(lines(run, 0), [CHECK, line]);
    assert.deepEqual(lines(run, 1), [CHECK, line]);
    assert.deepEqual(lines({ ...run, legacyTorch: false }, 1), [`torchrun ${STATIC} train.py --lr 3e-4`]);
  });

  it("torchrun told of Debian's torch 1.13 adds --redirects=1 --tee=1 without asking the node", () => {
    const run: ClusterRun = { preset: 'torchrun', script: 'train.py', legacyTorch: true };
    assert.deepEqual(lines(run, 1), [`torchrun --redirects=1 --tee=1 ${STATIC} train.py`]);
  });

  it('torchrun c10d: the endpoint on rank 0, the job id as the rendezvous id, rank 0 hosting the store', () => {
    const run: ClusterRun = { preset: 'torchrun-c10d', script: 'train.py', args: '--lr 3e-4' };
    const rdzv = `--rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:$MASTER_PORT --rdzv_id=${JOB}`;
    assert.deepEqual(lines(run, 0), [
      CHECK,
      `torchrun $GPU_RENTAL_TORCHRUN_FLAGS ${rdzv} --rdzv_conf=is_host=1 --nnodes=$NNODES --nproc_per_node=$NPROC_PER_NODE train.py --lr 3e-4`,
    ]);
    assert.deepEqual(lines(run, 1), [
      CHECK,
      `torchrun $GPU_RENTAL_TORCHRUN_FLAGS ${rdzv} --rdzv_conf=is_host=0 --nnodes=$NNODES --nproc_per_node=$NPROC_PER_NODE train.py --lr 3e-4`,
    ]);
    assert.deepEqual(lines({ ...run, legacyTorch: true }, 1), [
      `torchrun --redirects=1 --tee=1 ${rdzv} --rdzv_conf=is_host=0 --nnodes=$NNODES --nproc_per_node=$NPROC_PER_NODE train.py --lr 3e-4`,
    ]);
  });

  it("accelerate launch: machines, this machine's rank, rank 0's address and port, and every GPU as processes", () => {
    const run: ClusterRun = { preset: 'accelerate', script: 'train.py', args: '--lr 3e-4' };
    const line =
      'accelerate launch --multi_gpu --num_machines=$NNODES --machine_rank=$NODE_RANK --main_process_ip=$MASTER_ADDR --main_process_port=$MASTER_PORT --num_processes=$WORLD_SIZE train.py --lr 3e-4';
    assert.deepEqual(lines(run, 0), [line]);
    assert.deepEqual(lines(run, 1), [line]);
  });

  it("deepspeed --no_ssh: the hostfile, this node's rank, rank 0's address and port", () => {
    const run: ClusterRun = { preset: 'deepspeed', script: 'train.py', args: '--deepspeed ds.json' };
    const line =
      'deepspeed --no_ssh --hostfile="$GPU_RENTAL_HOSTFILE" --node_rank=$NODE_RANK --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT train.py --deepspeed ds.json';
    assert.deepEqual(lines(run, 0), [line]);
    assert.deepEqual(lines(run, 1), [line]);
  });

  it('Ray: rank 0 starts the head, runs the script and stops Ray; rank 1 waits for the head, then joins it', () => {
    const run: ClusterRun = { preset: 'ray', script: 'train.py', args: '--lr 3e-4' };
    assert.deepEqual(lines(run, 0), [
      'ray start --head --port=$MASTER_PORT --node-ip-address=$MASTER_ADDR || exit $?',
      'python3 train.py --lr 3e-4; c=$?',
      'ray stop; exit $c',
    ]);
    assert.deepEqual(lines(run, 1), [
      'i=0; until timeout 2 bash -c \': >/dev/tcp/$MASTER_ADDR/$MASTER_PORT\' 2>/dev/null; do i=$((i+1)); if [ $i -ge 300 ]; then echo "GPU Rental: the Ray head at $MASTER_ADDR:$MASTER_PORT did not answer in 10 minutes." >&2; exit 1; fi; sleep 2; done',
      'ray start --address=$MASTER_ADDR:$MASTER_PORT --block; c=$?',
      "timeout 2 bash -c ': >/dev/tcp/$MASTER_ADDR/$MASTER_PORT' 2>/dev/null || exit 0",
      'exit $c',
    ]);
  });

  it("custom: the user's command as typed, after the variables", () => {
    const run: ClusterRun = { preset: 'custom', command: '  mpirun --hostfile "$GPU_RENTAL_HOSTFILE" -np "$WORLD_SIZE" ./bench\n' };
    assert.deepEqual(lines(run, 0), ['mpirun --hostfile "$GPU_RENTAL_HOSTFILE" -np "$WORLD_SIZE" ./bench']);
    assert.deepEqual(lines(run, 1), ['mpirun --hostfile "$GPU_RENTAL_HOSTFILE" -np "$WORLD_SIZE" ./bench']);
  });

  it('has a name and a sentence for every preset, the default first', () => {
    assert.equal(PRESET_IDS[0], DEFAULT_PRESET);
    assert.equal(new Set(PRESET_IDS).size, 6);
    for (const id of PRESET_IDS) {
      assert.ok(presetLabel(id).length > 0, id);
      assert.match(presetDetail(id), /\.$/, id);
    }
  });
});

describe('cluster jobs: the script one node runs', () => {
  it("sets rank 1's variables, writes the hostfile into the job's folder, then starts torchrun", () => {
    const script = rankScript({
      layout: TWO_BY_EIGHT,
      rank: 1,
      jobId: JOB,
      run: { preset: 'torchrun', script: 'train.py', args: '--lr 3e-4' },
    });
    assert.equal(
      script,
      [
        `# GPU Rental cluster job ${JOB}: rank 1 of 2 nodes (torchrun).`,
        'export MASTER_ADDR=10.0.0.1',
        'export MASTER_PORT=29500',
        'export NODE_RANK=1',
        'export NNODES=2',
        'export NPROC_PER_NODE=8',
        'export WORLD_SIZE=16',
        "export NODE_IPS='10.0.0.1\n10.0.0.2'",
        'export NCCL_SOCKET_IFNAME=eth0',
        'export SKYPILOT_NODE_RANK=1',
        "export SKYPILOT_NODE_IPS='10.0.0.1\n10.0.0.2'",
        'export SKYPILOT_NUM_NODES=2',
        'export SKYPILOT_NUM_GPUS_PER_NODE=8',
        'export DSTACK_NODE_RANK=1',
        "export DSTACK_NODES_IPS='10.0.0.1\n10.0.0.2'",
        'export DSTACK_MASTER_NODE_IP=10.0.0.1',
        'export DSTACK_NODES_NUM=2',
        'export DSTACK_GPUS_PER_NODE=8',
        'export DSTACK_GPUS_NUM=16',
        `export GPU_RENTAL_HOSTFILE="\${HOME:-/root}/.gpu-rental/jobs"/${JOB}/hostfile`,
        "printf '%s\\n' '10.0.0.1 slots=8' '10.0.0.2 slots=8' >\"$GPU_RENTAL_HOSTFILE\"",
        CHECK,
        `torchrun $GPU_RENTAL_TORCHRUN_FLAGS ${STATIC} train.py --lr 3e-4`,
        '',
      ].join('\n'),
    );
  });

  it('differs between rank 0 and rank 1 only in the rank variables and the header', () => {
    const run: ClusterRun = { preset: 'deepspeed', script: 'train.py' };
    const zero = rankScript({ layout: TWO_BY_EIGHT, rank: 0, jobId: JOB, run }).split('\n');
    const one = rankScript({ layout: TWO_BY_EIGHT, rank: 1, jobId: JOB, run }).split('\n');
    const differ = zero.map((line, i) => [line, one[i]] as const).filter(([a, b]) => a !== b);
    assert.deepEqual(differ, [
      [
        `# GPU Rental cluster job ${JOB}: rank 0 of 2 nodes (deepspeed).`,
        `# GPU Rental cluster job ${JOB}: rank 1 of 2 nodes (deepspeed).`,
      ],
      ['export NODE_RANK=0', 'export NODE_RANK=1'],
      ['export SKYPILOT_NODE_RANK=0', 'export SKYPILOT_NODE_RANK=1'],
      ['export DSTACK_NODE_RANK=0', 'export DSTACK_NODE_RANK=1'],
    ]);
  });

  it('names the run by its launcher and script', () => {
    assert.equal(runLabel({ preset: 'torchrun-c10d', script: 'train.py', args: ' --lr 3e-4 ' }), 'torchrun train.py --lr 3e-4');
    assert.equal(runLabel({ preset: 'custom', command: 'bash go.sh\nsecond line' }), 'bash go.sh');
  });
});

describe('cluster jobs: quoting and refusals', () => {
  const awkward = "my dir/it's.py";
  const quoted = "'my dir/it'\\''s.py'";

  it('quotes a script path with a space and a quote as one shell word, in every preset', () => {
    const words = (run: ClusterRun, rank = 0) => lines(run, rank).join('\n');
    assert.equal(words({ preset: 'torchrun', script: awkward, legacyTorch: false }), `torchrun ${STATIC} ${quoted}`);
    assert.ok(words({ preset: 'torchrun-c10d', script: awkward }).endsWith(` ${quoted}`));
    assert.ok(words({ preset: 'accelerate', script: awkward }).endsWith(` ${quoted}`));
    assert.ok(words({ preset: 'deepspeed', script: awkward }).endsWith(` ${quoted}`));
    assert.ok(words({ preset: 'ray', script: awkward }).includes(`\npython3 ${quoted}; c=$?\n`));
  });

  it('never lets a script name read as an option', () => {
    assert.deepEqual(lines({ preset: 'torchrun', script: '--help.py', legacyTorch: false }, 0), [`torchrun ${STATIC} ./--help.py`]);
    assert.equal(lines({ preset: 'ray', script: '-x.py' }, 0)[1], 'python3 ./-x.py; c=$?');
  });

  it('refuses a port of 1000 or below and one above 65535, in every preset', () => {
    for (const masterPort of [1000, 65536]) {
      for (const run of [
        { preset: 'torchrun', script: 'train.py' },
        { preset: 'ray', script: 'train.py' },
        { preset: 'custom', command: 'true' },
      ] as ClusterRun[]) {
        assert.throws(
          () => rankScript({ layout: { ...TWO_BY_EIGHT, masterPort }, rank: 0, jobId: JOB, run }),
          /^RangeError: GPU Rental: \d+ cannot be the rendezvous port/,
          `${run.preset} ${masterPort}`,
        );
      }
    }
  });

  it('refuses arguments over several lines, an empty script or command, and a job id it did not make', () => {
    assert.throws(() => lines({ preset: 'torchrun', script: 'train.py', args: '--a 1\nrm -rf ~' }, 0), /fit on one line/);
    assert.throws(() => lines({ preset: 'accelerate', script: ' ' }, 0), /not a script path/);
    assert.throws(() => lines({ preset: 'deepspeed', script: 'a\nb.py' }, 0), /not a script path/);
    assert.throws(() => lines({ preset: 'custom', command: ' \n ' }, 0), /custom command is empty/);
    assert.throws(() => presetLines({ preset: 'torchrun', script: 'train.py' }, TWO_BY_EIGHT, 0, 'x; reboot'), /not a job id/);
  });

  it('refuses accelerate on nodes with different GPU counts, and says what to choose instead', () => {
    const mixed: ClusterLayout = {
      nodes: [
        { address: '10.0.0.1', gpus: 8 },
        { address: '10.0.0.2', gpus: 4 },
      ],
      masterPort: 29500,
    };
    assert.throws(
      () => presetLines({ preset: 'accelerate', script: 'train.py' }, mixed, 0, JOB),
      /these nodes have 8, 4\. Choose torchrun or DeepSpeed/,
    );
    assert.doesNotThrow(() => presetLines({ preset: 'deepspeed', script: 'train.py' }, mixed, 0, JOB));
  });
});

describe("cluster jobs: the node's own torchrun check", () => {
  /** What the check line sets on a node whose python3 imports a torch of `version` (none: no torch). */
  function flagsWith(version: string | undefined): string {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-torch-'));
    try {
      if (version !== undefined) {
        mkdirSync(join(dir, 'torch'));
        writeFileSync(join(dir, 'torch', '__init__.py'), `__version__ = ${JSON.stringify(version)}\n`);
      }
      const check = lines({ preset: 'torchrun', script: 'train.py' }, 0)[0]!;
      const run = spawnSync('bash', ['-c', `${check}\nprintf '%s' "$GPU_RENTAL_TORCHRUN_FLAGS"`], {
        encoding: 'utf8',
        env: { ...process.env, PYTHONPATH: dir, PYTHONNOUSERSITE: '1' },
      });
      assert.equal(run.status, 0, run.stderr);
      return run.stdout;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const python311 =
    spawnSync('python3', ['-c', 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'], { stdio: 'ignore' }).status === 0;

  it('adds --redirects=1 --tee=1 for torch 1.x on Python 3.11 or newer, and nothing for torch 2 or no torch', function () {
    if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0) this.skip();
    assert.equal(flagsWith('1.13.1'), python311 ? '--redirects=1 --tee=1' : '');
    assert.equal(flagsWith('2.3.0+cu121'), '');
    assert.equal(flagsWith(undefined), '');
  });
});
