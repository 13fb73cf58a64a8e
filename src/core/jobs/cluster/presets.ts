/**
 * How a cluster job starts its engine on each node. Every preset is an existing launcher, never
 * our own, and each flag below is one its documentation names:
 *
 * - `torchrun` (the default): static rendezvous, `--nnodes --node_rank --nproc_per_node
 *   --master_addr --master_port` (PyTorch, "torchrun (Elastic Launch)"); the form SkyPilot's and
 *   dstack's recipes use.
 * - `torchrun-c10d`: `--rdzv_backend=c10d --rdzv_endpoint=<addr>:<port> --rdzv_id=<job id>`
 *   (PyTorch, "Quickstart"), with `--rdzv_conf=is_host=1` on rank 0 and `is_host=0` elsewhere, so
 *   the node that hosts the store is rank 0 and not a guess from the machine's hostname.
 * - `accelerate`: `accelerate launch --multi_gpu --num_machines --machine_rank --main_process_ip
 *   --main_process_port --num_processes` (Accelerate, "The Command Line"); `--num_processes` is
 *   the total over all machines, which Accelerate divides by `--num_machines`, so every node must
 *   have the same GPUs.
 * - `deepspeed`: `deepspeed --no_ssh --hostfile --node_rank --master_addr --master_port`
 *   (DeepSpeed 0.14.5 or newer, `deepspeed/launcher/runner.py`); the hostfile gives the nodes.
 * - `ray`: rank 0 runs `ray start --head --port --node-ip-address`, then the command, then
 *   `ray stop`; the others wait for the head's port, then `ray start --address=<addr>:<port>
 *   --block` (Ray, "Launching an On-Premise Cluster" and "Cluster Management CLI").
 * - `custom`: the user's own command, with the variables set.
 *
 * A preset's command reads the variables clusterVariables sets just above it in the job's script
 * (`$NNODES`, `$NODE_RANK`…), as the tools' own recipes do, so a custom command can copy it. The
 * values are checked numbers and addresses; the script's path is quoted; the arguments are the
 * user's own shell words, on one line.
 */

import { l10n } from '../../l10n';
import { shellQuote } from '../../shell';
import { isJobId, pythonCommand } from '../scripts';
import { checkLayout, type ClusterLayout } from './env';
import { HOSTFILE_VARIABLE } from './hostfile';

export type PresetId = 'torchrun' | 'torchrun-c10d' | 'accelerate' | 'deepspeed' | 'ray' | 'custom';

/** The presets in the order a picker shows them, the default first. */
export const PRESET_IDS: readonly PresetId[] = ['torchrun', 'torchrun-c10d', 'accelerate', 'deepspeed', 'ray', 'custom'];

export const DEFAULT_PRESET: PresetId = 'torchrun';

/** What the user chose to run: a preset with a script and its arguments, or a command of their own. */
export type ClusterRun =
  | {
      readonly preset: 'torchrun' | 'torchrun-c10d';
      readonly script: string;
      readonly args?: string;
      /**
       * Debian's torch 1.13 on Python 3.11: torchrun fails at start unless given `--redirects=1
       * --tee=1` (its `Std.from_str` returns None for 0 and 3 there). True adds both (stdout also
       * goes to a log file under torchrun's log folder, and still reaches the job's output), false
       * never; unset, each node adds them when its own python3 has such a torch.
       */
      readonly legacyTorch?: boolean;
    }
  | { readonly preset: 'accelerate' | 'deepspeed' | 'ray'; readonly script: string; readonly args?: string }
  | { readonly preset: 'custom'; readonly command: string };

/** The preset's name in a picker. */
export function presetLabel(id: PresetId): string {
  switch (id) {
    case 'torchrun':
      return l10n.t('torchrun (static rendezvous)');
    case 'torchrun-c10d':
      return l10n.t('torchrun (c10d rendezvous)');
    case 'accelerate':
      return l10n.t('Accelerate');
    case 'deepspeed':
      return l10n.t('DeepSpeed');
    case 'ray':
      return l10n.t('Ray');
    case 'custom':
      return l10n.t('Custom command');
  }
}

/** One sentence under the preset's name: what it starts on each node. */
export function presetDetail(id: PresetId): string {
  switch (id) {
    case 'torchrun':
      return l10n.t('Runs torchrun on every node, with rank 0 as the rendezvous. The usual choice for PyTorch.');
    case 'torchrun-c10d':
      return l10n.t('Runs torchrun on every node with a c10d rendezvous hosted on rank 0.');
    case 'accelerate':
      return l10n.t('Runs accelerate launch on every node. Every node needs the same number of GPUs.');
    case 'deepspeed':
      return l10n.t("Runs deepspeed --no_ssh on every node with the cluster's hostfile. Needs DeepSpeed 0.14.5 or newer.");
    case 'ray':
      return l10n.t('Starts a Ray head on rank 0 and joins the other nodes to it, then runs the script on the head.');
    case 'custom':
      return l10n.t("Runs your own command on every node, with the cluster's variables set.");
  }
}

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The script as one shell word: checked, quoted, and never read as an option. */
function scriptWord(script: string): string {
  if (script.trim() === '' || CONTROL.test(script))
    throw new Error(
      l10n.t('GPU Rental: "{0}" is not a script path a cluster job can run. Choose a file in the uploaded folder.', JSON.stringify(script)),
    );
  return shellQuote(script.startsWith('-') ? `./${script}` : script);
}

/** The user's arguments as typed: one line of shell words, or nothing. */
function argsText(args: string | undefined): string {
  const text = (args ?? '').trim();
  if (CONTROL.test(text))
    throw new Error(l10n.t("GPU Rental: the script's arguments must fit on one line. Remove the line breaks and try again."));
  return text;
}

function withArgs(words: string, args: string | undefined): string {
  const text = argsText(args);
  return text === '' ? words : `${words} ${text}`;
}

const ACCELERATE =
  'accelerate launch --multi_gpu --num_machines=$NNODES --machine_rank=$NODE_RANK --main_process_ip=$MASTER_ADDR --main_process_port=$MASTER_PORT --num_processes=$WORLD_SIZE';

const TORCHRUN_STATIC =
  '--nnodes=$NNODES --node_rank=$NODE_RANK --nproc_per_node=$NPROC_PER_NODE --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT';

/** What Debian's torch 1.13 needs before torchrun's other flags (see ClusterRun). */
const LEGACY_TORCHRUN_FLAGS = '--redirects=1 --tee=1';

/** The variable the node's own check fills with LEGACY_TORCHRUN_FLAGS, or leaves empty. */
const TORCHRUN_FLAGS_VARIABLE = 'GPU_RENTAL_TORCHRUN_FLAGS';

/**
 * Asks the node's python3 whether its torch needs LEGACY_TORCHRUN_FLAGS: torch 1.x on Python 3.11
 * or newer (Debian's python3-torch). Newer torch reads the flags' defaults right and is left as is.
 */
const TORCHRUN_CHECK = `${TORCHRUN_FLAGS_VARIABLE}=$(python3 -c 'import sys, torch; print("${LEGACY_TORCHRUN_FLAGS}" if int(torch.__version__.split(".")[0]) < 2 and sys.version_info >= (3, 11) else "")' 2>/dev/null)`;

/** torchrun with the flags `legacyTorch` asks for: true adds them, false never, unset lets the node decide. */
function torchrun(legacyTorch: boolean | undefined): string {
  if (legacyTorch === undefined) return `torchrun $${TORCHRUN_FLAGS_VARIABLE}`;
  return legacyTorch ? ['torchrun', LEGACY_TORCHRUN_FLAGS].join(' ') : 'torchrun';
}

/** The line that runs the node's check first, when the node decides (see torchrun). */
function torchrunCheck(legacyTorch: boolean | undefined): string[] {
  return legacyTorch === undefined ? [TORCHRUN_CHECK] : [];
}

/** A bash test that rank 0's port answers, within 2 s. */
const HEAD_ANSWERS = "timeout 2 bash -c ': >/dev/tcp/$MASTER_ADDR/$MASTER_PORT' 2>/dev/null";

/** How long a Ray worker waits for the head to listen: 300 tries, 2 s apart. */
export const RAY_HEAD_WAIT_TRIES = 300;

function rayLines(rank: number, script: string, args: string | undefined): string[] {
  if (rank === 0)
    return [
      'ray start --head --port=$MASTER_PORT --node-ip-address=$MASTER_ADDR || exit $?',
      `${withArgs(pythonCommand(script), args)}; c=$?`,
      // Stopping the head ends every worker's `ray start --block`, so their jobs end with this one.
      'ray stop; exit $c',
    ];
  return [
    `i=0; until ${HEAD_ANSWERS}; do i=$((i+1)); if [ $i -ge ${RAY_HEAD_WAIT_TRIES} ]; then echo "GPU Rental: the Ray head at $MASTER_ADDR:$MASTER_PORT did not answer in 10 minutes." >&2; exit 1; fi; sleep 2; done`,
    'ray start --address=$MASTER_ADDR:$MASTER_PORT --block; c=$?',
    // The head stopped (its command ended, or it failed and says so itself): this worker's part is done.
    `${HEAD_ANSWERS} || exit 0`,
    'exit $c',
  ];
}

/**
 * The lines of bash that start the engine on rank `rank`, once the variables are set (see
 * rankScript). `jobId` names the c10d rendezvous.
 */
export function presetLines(run: ClusterRun, layout: ClusterLayout, rank: number, jobId: string): string[] {
  checkLayout(layout);
  if (!isJobId(jobId)) throw new Error(l10n.t('"{0}" is not a job id GPU Rental makes.', jobId));
  switch (run.preset) {
    case 'torchrun':
      return [
        ...torchrunCheck(run.legacyTorch),
        withArgs(`${torchrun(run.legacyTorch)} ${TORCHRUN_STATIC} ${scriptWord(run.script)}`, run.args),
      ];
    case 'torchrun-c10d': {
      const host = rank === 0 ? 1 : 0;
      const rdzv = `--rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:$MASTER_PORT --rdzv_id=${jobId} --rdzv_conf=is_host=${host}`;
      return [
        ...torchrunCheck(run.legacyTorch),
        withArgs(
          `${torchrun(run.legacyTorch)} ${rdzv} --nnodes=$NNODES --nproc_per_node=$NPROC_PER_NODE ${scriptWord(run.script)}`,
          run.args,
        ),
      ];
    }
    case 'accelerate': {
      const counts = [...new Set(layout.nodes.map((n) => n.gpus))];
      if (counts.length > 1)
        throw new Error(
          l10n.t(
            'GPU Rental: accelerate launch needs the same number of GPUs on every node, and these nodes have {0}. Choose torchrun or DeepSpeed instead.',
            counts.join(', '),
          ),
        );
      return [withArgs(`${ACCELERATE} ${scriptWord(run.script)}`, run.args)];
    }
    case 'deepspeed': {
      const flags = `--no_ssh --hostfile="$${HOSTFILE_VARIABLE}" --node_rank=$NODE_RANK --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT`;
      return [withArgs(`deepspeed ${flags} ${scriptWord(run.script)}`, run.args)];
    }
    case 'ray':
      scriptWord(run.script);
      return rayLines(rank, run.script, run.args);
    case 'custom': {
      const command = run.command.trim();
      if (command === '') throw new Error(l10n.t('GPU Rental: the custom command is empty. Type the command every node runs.'));
      return [command];
    }
  }
}
