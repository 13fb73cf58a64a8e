import * as vscode from 'vscode';
import { ONSTART_MAX_CHARS } from '../../core/api/limits';
import type { VolumeAttachment } from '../../core/api/instances';
import type { Offer } from '../../core/api/offers';
import { presentOffer } from '../../core/offers/present';
import { describeLaunch, isRentRuntype, type LaunchMode, type RentRuntype } from '../../core/rent/launchMode';
import { rentDiskFor } from '../../core/offers/search';
import { quoteRent, storagePerHour } from '../../core/rent/quote';
import { BID_MIN, RENT_BID_MAX, checkBid, minBidOf, onDemandGpuPerHour, parseBid, suggestBid } from '../../core/rent/bid';
import { describeRentEnv } from '../../core/account/secrets';
import { rentEnvStep } from './envStep';
import { BACK, CANCEL, inputStep, pickStep, type PickItem, type StepContext } from './input';
import { formatDollars } from '../../core/format';
import { rentPriceContext, type GpuPriceStats, type PriceContext } from '../../core/offers/priceContext';
import { rentDiskBox, type RentPlan } from '../../core/rent/plan';
import { boxProblem, boxValue, decimalText, gigabytesBox, readBox } from '../../core/numbers';

/** A volume the rent may attach: one of the account's, or a new one from a volume offer on the same machine. */
export interface VolumeChoice {
  label: string;
  description: string;
  /** An existing volume's id, or the volume offer's id for a new one. */
  volumeId: number;
  /** Set for a new volume: how big it may be and what a GB costs per month. */
  offer?: { maxGb: number; costPerGbMonth: number };
}

export const IMAGE_PRESETS: ReadonlyArray<{ image: string; detail: string }> = [
  { image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel', detail: vscode.l10n.t('PyTorch 2.5 with CUDA 12.4 and cuDNN 9') },
  { image: 'nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04', detail: vscode.l10n.t('CUDA 12.4 toolkit on Ubuntu 22.04') },
  { image: 'vllm/vllm-openai:latest', detail: vscode.l10n.t('vLLM with an OpenAI-compatible server') },
  { image: 'ubuntu:22.04', detail: vscode.l10n.t('Plain Ubuntu 22.04') },
];

type Source = { image: string } | { template: string } | 'otherImage' | 'template';

export interface WizardInput {
  offer: Offer;
  credit: number | undefined;
  recentImages: readonly string[];
  defaultLabel: string;
  /** Text of the active editor, offered as a start-up script. */
  activeEditor?: { name: string; text: string };
  /** The idle stop the settings ask for (0: off); the confirmation can turn it off or on for this rent. */
  idleStopMinutes: number;
  /** Start with this template chosen (Rent With Template); the first step is skipped. */
  template?: string;
  /** Templates rented with before, offered in the first step. */
  recentTemplates?: readonly string[];
  /** The volumes this offer's machine can mount; the confirmation offers them when given. */
  volumeChoices?: () => Promise<VolumeChoice[]>;
  /** Reads a template's own launch mode, for the connection step and the confirmation; undefined when it cannot be read. */
  templateMode?: (hash: string) => Promise<LaunchMode | undefined>;
  /** The disk (GB) the offer's listed price includes: the disk step starts there (see rentDiskFor). */
  searchedDiskGb?: number;
  /** The names of the account's own variables, for the environment step's hint; undefined when they cannot be read. */
  accountSecretNames?: () => Promise<string[] | undefined>;
  /**
   * The offer came from a `type=bid` search: the rent starts as a bid just over the minimum, and
   * the on-demand price is read from `dph_base` (the listed price is the minimum bid).
   */
  bidSearch?: boolean;
  /** Rent Best Match: what happens when this offer is taken (the offers the plan can go to next), a row on the confirmation. */
  failover?: (plan: RentPlan) => { title: string; detail: string };
  /** The going rate of the offer's GPU model: the confirmation compares what the rent pays with it, when known. */
  priceStats?: GpuPriceStats;
}

/**
 * The rent flow's six steps, with Back on each: image or template, disk, connection, label,
 * start-up script, confirmation with the full price. Resolves undefined when cancelled.
 */
export async function rentWizard(input: WizardInput): Promise<RentPlan | undefined> {
  const { offer } = input;
  const title = vscode.l10n.t('Rent {0} (offer {1})', presentOffer(offer).label, offer.id);
  const total = 6;
  const ctx = (step: number): StepContext => ({ title, step, totalSteps: total });
  const plan: Partial<RentPlan> = {
    disk: rentDiskFor(offer, input.searchedDiskGb),
    label: input.defaultLabel,
    idleStopMinutes: input.idleStopMinutes,
  };
  const bidSearch = input.bidSearch ?? false;
  const minBid = minBidOf(offer);
  if (bidSearch && minBid !== undefined) plan.bid = suggestBid(minBid);
  /** How the chosen volume reads on the confirmation, and what a new one bills per hour. */
  let volume: ChosenVolume | undefined;
  /** The chosen template's launch mode, read once per template. */
  let known: { hash: string; mode: LaunchMode | undefined } | undefined;
  const modeOf = async (hash: string): Promise<LaunchMode | undefined> => {
    if (known?.hash !== hash) known = { hash, mode: await input.templateMode?.(hash).catch(() => undefined) };
    return known.mode;
  };
  if (input.template) plan.template = input.template;
  let step = input.template ? 2 : 1;
  while (step <= total) {
    let r: unknown;
    switch (step) {
      case 1: {
        const items: PickItem<Source>[] = [
          ...(input.recentImages.length
            ? [{ label: vscode.l10n.t('Recent'), kind: vscode.QuickPickItemKind.Separator } as PickItem<Source>]
            : []),
          ...input.recentImages.map((image) => ({ label: image, description: vscode.l10n.t('recent'), value: { image } as Source })),
          ...(input.recentTemplates ?? []).map((template) => ({
            label: vscode.l10n.t('$(symbol-class) template {0}', template.slice(0, 12)),
            description: vscode.l10n.t('recent template'),
            value: { template } as Source,
          })),
          { label: vscode.l10n.t('Presets'), kind: vscode.QuickPickItemKind.Separator },
          ...IMAGE_PRESETS.map((p) => ({ label: p.image, description: p.detail, value: { image: p.image } as Source })),
          { label: '', kind: vscode.QuickPickItemKind.Separator },
          { label: vscode.l10n.t('$(edit) Other image…'), description: vscode.l10n.t('any Docker image reference'), value: 'otherImage' },
          { label: vscode.l10n.t('$(symbol-class) Template by hash…'), description: vscode.l10n.t('a saved template'), value: 'template' },
        ];
        r = await pickStep(ctx(1), {
          placeholder: vscode.l10n.t('Image to run, or type one (e.g. python:3.12)'),
          items,
          acceptTyped: (t) => ({ image: t }),
        });
        if (r === 'otherImage')
          r = await inputStep(ctx(1), {
            prompt: vscode.l10n.t('Docker image to run.'),
            value: plan.image ?? '',
            placeholder: 'registry/name:tag',
            validate: (v) => (/^\S+$/.test(v.trim()) ? undefined : vscode.l10n.t('Enter an image reference without spaces.')),
          }).then((v) => (typeof v === 'string' ? { image: v.trim() } : v));
        if (r === 'template')
          r = await inputStep(ctx(1), {
            prompt: vscode.l10n.t('Template hash (its settings are used; the disk size below still applies).'),
            value: plan.template ?? '',
            validate: (v) => (/^[A-Za-z0-9]+$/.test(v.trim()) ? undefined : vscode.l10n.t('A template hash is letters and digits.')),
          }).then((v) => (typeof v === 'string' ? { template: v.trim() } : v));
        if (r && typeof r === 'object') {
          const wasTemplate = plan.template !== undefined;
          plan.image = 'image' in r ? (r as { image: string }).image : undefined;
          plan.template = 'template' in r ? (r as { template: string }).template : undefined;
          // From an image to a template: the template's own mode, unless the user picks another.
          if (plan.template && !wasTemplate) plan.runtype = undefined;
        }
        break;
      }
      case 2: {
        const box = rentDiskBox(offer);
        r = await inputStep(ctx(2), {
          prompt: vscode.l10n.t('Disk size in GB (up to {0}).', box.max),
          value: plan.disk === undefined ? '' : decimalText(plan.disk),
          validate: (v) => boxProblem(v, box),
          describe: (v) => {
            const gb = readBox(v, box).value;
            if (gb === undefined) return '';
            const q = quoteRent(offer, gb, input.credit, { bid: plan.bid, bidSearch });
            return vscode.l10n.t('Disk: {0}/h; total {1}/h.', formatDollars(q.diskPerHour), formatDollars(q.totalPerHour));
          },
        });
        if (typeof r === 'string') plan.disk = boxValue(r, box);
        break;
      }
      case 3: {
        const direct = (offer.direct_port_count ?? 0) > 0;
        // With a template, each mode says it replaces the template's own.
        const instead = (text: string) => (plan.template ? vscode.l10n.t("{0}, instead of the template's mode", text) : text);
        const items: PickItem<RentRuntype | 'template'>[] = [
          ...(direct
            ? [
                {
                  label: vscode.l10n.t('Direct SSH'),
                  description: instead(vscode.l10n.t("to the machine's own address ({0} ports open)", String(offer.direct_port_count))),
                  value: 'ssh_direct' as const,
                },
              ]
            : []),
          {
            label: vscode.l10n.t('SSH through the proxy'),
            description: instead(
              direct ? vscode.l10n.t('works behind any firewall; a little slower') : vscode.l10n.t('this machine has no direct ports'),
            ),
            value: 'ssh_proxy',
          },
          ...(direct
            ? [
                {
                  label: vscode.l10n.t('Jupyter and SSH on direct ports'),
                  description: instead(vscode.l10n.t('a Jupyter server as well; Open Jupyter opens it')),
                  value: 'jupyter_direc ssh_direc ssh_proxy' as const,
                },
              ]
            : []),
          {
            label: vscode.l10n.t('Jupyter and SSH through the proxy'),
            description: instead(vscode.l10n.t('a Jupyter server as well; Open Jupyter opens it')),
            value: 'jupyter_proxy ssh_proxy',
          },
        ];
        if (plan.template) {
          // The service takes the template's mode when the rent names none; a runtype sent would replace it.
          const mode = await modeOf(plan.template);
          items.unshift({
            label: mode ? vscode.l10n.t("The template's mode: {0}", mode.text) : vscode.l10n.t("The template's own mode"),
            description: mode
              ? mode.kind === 'args'
                ? vscode.l10n.t('runs its entrypoint; Connect cannot reach it')
                : vscode.l10n.t('as the template was saved')
              : vscode.l10n.t('the template could not be read to say which'),
            value: 'template',
          });
        }
        r = await pickStep(ctx(3), {
          placeholder: vscode.l10n.t('How to connect'),
          items,
          activeValue: plan.runtype ?? (plan.template ? 'template' : direct ? 'ssh_direct' : 'ssh_proxy'),
        });
        if (r === 'template') plan.runtype = undefined;
        else if (isRentRuntype(r)) plan.runtype = r;
        break;
      }
      case 4:
        r = await inputStep(ctx(4), {
          prompt: vscode.l10n.t('A label to recognise the instance by.'),
          value: plan.label ?? input.defaultLabel,
          validate: (v) =>
            v.trim() === ''
              ? vscode.l10n.t('A label is needed: it is how a lost rent is found again.')
              : v.length > 1024
                ? vscode.l10n.t('At most 1024 characters.')
                : undefined,
        });
        if (typeof r === 'string') plan.label = r.trim();
        break;
      case 5: {
        const items: PickItem<string>[] = [
          { label: vscode.l10n.t('No start-up script'), value: '' },
          { label: vscode.l10n.t('$(edit) Type a command…'), description: vscode.l10n.t('run once the container starts'), value: 'type' },
          ...(input.activeEditor
            ? [
                {
                  label: vscode.l10n.t('$(file) Use {0}', input.activeEditor.name),
                  description: vscode.l10n.t('{0} characters from the active editor', input.activeEditor.text.length),
                  value: 'editor',
                },
              ]
            : []),
        ];
        r = await pickStep(ctx(5), { placeholder: vscode.l10n.t('Start-up script (optional)'), items });
        if (r === 'type')
          r = await inputStep(ctx(5), {
            prompt: 'Shell command run at start-up (use ; or && to chain).',
            value: plan.onstart ?? '',
            validate: (v) => (v.length > ONSTART_MAX_CHARS ? vscode.l10n.t('At most {0} characters.', ONSTART_MAX_CHARS) : undefined),
          });
        if (r === 'editor') r = input.activeEditor!.text;
        if (typeof r === 'string') {
          if (r.length > ONSTART_MAX_CHARS) {
            void vscode.window.showErrorMessage(
              vscode.l10n.t(
                'GPU Rental: the start-up script has {0} characters; the service accepts at most {1}.',
                r.length,
                ONSTART_MAX_CHARS,
              ),
            );
            r = BACK;
            step++;
          } else plan.onstart = r || undefined;
        }
        break;
      }
      case 6:
        r = await confirmStep(
          ctx(6),
          offer,
          plan as RentPlan,
          input.credit,
          input.volumeChoices ? (volume ?? 'none') : undefined,
          plan.template ? await modeOf(plan.template) : undefined,
          input.failover?.(plan as RentPlan),
          bidSearch,
          input.priceStats,
        );
        if (r === 'bid') {
          const chosen = await bidStep(ctx(6), offer, plan.bid, bidSearch);
          if (chosen === CANCEL) return undefined;
          if (chosen !== BACK) plan.bid = chosen ?? undefined;
          continue;
        }
        if (r === 'volume') {
          const chosen = await volumeStep(ctx(6), input.volumeChoices!);
          if (chosen === CANCEL) return undefined;
          if (chosen !== BACK) {
            plan.volume = chosen?.attachment;
            volume = chosen ?? undefined;
          }
          continue;
        }
        if (r === 'env') {
          const names = await input.accountSecretNames?.().catch(() => undefined);
          plan.env = await rentEnvStep(ctx(6), plan.env ?? {}, names);
          continue;
        }
        if (r === 'toggleIdle') {
          // The toggle row: flip it and show the confirmation again.
          plan.idleStopMinutes = plan.idleStopMinutes ? 0 : input.idleStopMinutes || 30;
          continue;
        }
        break;
    }
    if (r === CANCEL || r === undefined) return undefined;
    if (r === BACK) step = Math.max(1, step - 1);
    else step++;
  }
  return plan as RentPlan;
}

/**
 * The confirmation's rental row: on demand with the minimum bid beside it (select to bid), or the
 * bid with the on-demand price beside it and what an outbid costs. None for an offer without a
 * minimum bid.
 */
function rentalRow(offer: Offer, plan: RentPlan, bidSearch: boolean): PickItem<string>[] {
  const minBid = minBidOf(offer);
  if (minBid === undefined) return [];
  const onDemand = formatDollars(onDemandGpuPerHour(offer, bidSearch));
  if (plan.bid === undefined)
    return [
      {
        label: vscode.l10n.t('$(tag) Rental: on-demand {0}/h', onDemand),
        description: vscode.l10n.t('select to bid instead (minimum now {0}/h)', formatDollars(minBid)),
        value: 'bid',
      },
    ];
  return [
    {
      label: vscode.l10n.t('$(tag) Interruptible: bid {0}/h (on-demand {1}/h)', formatDollars(plan.bid), onDemand),
      description: vscode.l10n.t('stopped if outbid; the disk still bills · select to change'),
      value: 'bid',
    },
  ];
}

/**
 * Asks the bid: $/hour for the GPU part, starting a little over the minimum, at least the minimum and
 * at most what the service takes, with the on-demand price beside it. From a bid it also offers to
 * rent on demand instead. Resolves the bid, null for on demand, or BACK/CANCEL.
 */
async function bidStep(
  ctx: StepContext,
  offer: Offer,
  current: number | undefined,
  bidSearch: boolean,
): Promise<number | null | typeof BACK | typeof CANCEL> {
  const minBid = minBidOf(offer) ?? BID_MIN;
  const onDemand = formatDollars(onDemandGpuPerHour(offer, bidSearch));
  if (current !== undefined) {
    const choice = await pickStep(ctx, {
      placeholder: vscode.l10n.t('Interruptible at {0}/h, or on demand at {1}/h', formatDollars(current), onDemand),
      items: [
        {
          label: vscode.l10n.t('$(edit) Change the bid…'),
          description: vscode.l10n.t('minimum now {0}/h', formatDollars(minBid)),
          value: 'change',
        },
        {
          label: vscode.l10n.t('$(vm) Rent on demand instead'),
          description: vscode.l10n.t('{0}/h for the GPU; never outbid', onDemand),
          value: 'onDemand',
        },
      ],
    });
    if (choice === BACK || choice === CANCEL) return choice;
    if (choice === 'onDemand') return null;
    if (choice !== 'change') return BACK;
  }
  const bounds = { min: minBid, max: RENT_BID_MAX };
  const answer = await inputStep(ctx, {
    prompt: vscode.l10n.t(
      'Bid in $/h for the GPU part (minimum now {0}/h, on demand {1}/h). It is stopped when someone bids more; the disk still bills.',
      formatDollars(minBid),
      onDemand,
    ),
    value: decimalText(current ?? suggestBid(minBid)),
    validate: (v) => checkBid(v, bounds),
  });
  if (answer === BACK || answer === CANCEL) return answer;
  return parseBid(answer, bounds);
}

/** A volume picked on the confirmation: what to send, how it reads, and what a new one bills per hour (0 for an existing one). */
interface ChosenVolume {
  attachment: VolumeAttachment;
  text: string;
  perHour: number;
}

/**
 * Picks a volume (or none), then the size of a new one with its price, then where to mount it.
 * Resolves with the attachment and how to describe it, null for no volume, or BACK/CANCEL.
 */
async function volumeStep(
  ctx: StepContext,
  choices: () => Promise<VolumeChoice[]>,
): Promise<ChosenVolume | null | typeof BACK | typeof CANCEL> {
  const options = await choices();
  const items: PickItem<VolumeChoice | 'none'>[] = [
    {
      label: vscode.l10n.t('No volume'),
      description: vscode.l10n.t('only the instance disk, which goes when the instance is destroyed'),
      value: 'none',
    },
    ...options.map((c) => ({ label: c.label, description: c.description, value: c })),
  ];
  if (options.length === 0)
    items.push({
      label: vscode.l10n.t('No volume can be mounted here'),
      description: vscode.l10n.t('none of your volumes is on this machine, and it offers no volume storage'),
    });
  const picked = await pickStep(ctx, {
    placeholder: vscode.l10n.t('A volume keeps its data after the instance is destroyed (it must be on the same machine)'),
    items,
  });
  if (picked === BACK || picked === CANCEL) return picked;
  if (picked === 'none' || picked === undefined) return null;
  let size: number | undefined;
  let cost = '';
  let volumePerHour = 0;
  if (picked.offer) {
    const { maxGb, costPerGbMonth } = picked.offer;
    const perHour = (gb: number) => storagePerHour(gb, costPerGbMonth);
    const box = gigabytesBox(maxGb);
    const answer = await inputStep(ctx, {
      prompt: vscode.l10n.t('Size of the new volume in GB (up to {0}).', box.max),
      value: decimalText(Math.min(50, box.max)),
      validate: (v) => boxProblem(v, box),
      describe: (v) => {
        const gb = readBox(v, box).value;
        return gb === undefined
          ? ''
          : vscode.l10n.t('It bills {0}/h until you delete it, also after the instance is destroyed.', formatDollars(perHour(gb)));
      },
    });
    if (answer === BACK || answer === CANCEL) return answer;
    size = boxValue(answer, box);
    volumePerHour = perHour(size);
    cost = vscode.l10n.t(', {0}/h until deleted', formatDollars(volumePerHour));
  }
  const mount = await inputStep(ctx, {
    prompt: vscode.l10n.t('Where to mount it in the instance.'),
    value: '/data',
    validate: (v) =>
      /^\/[^\s]*$/.test(v.trim()) && v.trim() !== '/' ? undefined : vscode.l10n.t('An absolute path such as /data or /workspace.'),
  });
  if (mount === BACK || mount === CANCEL) return mount;
  const attachment: VolumeAttachment = picked.offer
    ? { create_new: true, volume_id: picked.volumeId, size, mount_path: mount.trim() }
    : { create_new: false, volume_id: picked.volumeId, mount_path: mount.trim() };
  const what = picked.offer ? vscode.l10n.t('new {0} GB volume', String(size)) : picked.label;
  return { attachment, text: `${what} at ${mount.trim()}${cost}`, perHour: volumePerHour };
}

async function confirmStep(
  ctx: StepContext,
  offer: Offer,
  plan: RentPlan,
  credit: number | undefined,
  volume: ChosenVolume | 'none' | undefined,
  templateMode: LaunchMode | undefined,
  failover?: { title: string; detail: string },
  bidSearch = false,
  priceStats?: GpuPriceStats,
): Promise<unknown> {
  const volumePerHour = typeof volume === 'object' ? volume.perHour : 0;
  const q = quoteRent(offer, plan.disk, credit, { bid: plan.bid, bidSearch });
  const what = plan.template ? vscode.l10n.t('template {0}', plan.template) : plan.image;
  const items: PickItem<string>[] = [
    {
      label: vscode.l10n.t('$(rocket) Rent for {0}/h', formatDollars(q.totalPerHour)),
      // A new volume bills on its own, also after the instance is gone: said beside the total, not hidden in it.
      description:
        volumePerHour > 0
          ? vscode.l10n.t('about {0} per day, plus the new volume {1}/h', formatDollars(q.perDay), formatDollars(volumePerHour))
          : vscode.l10n.t('about {0} per day', formatDollars(q.perDay)),
      value: 'rent',
    },
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    // Information rows: accepting them does nothing.
    { label: vscode.l10n.t('GPU {0}/h', formatDollars(q.gpuPerHour)), description: `${presentOffer(offer).label}` },
    ...priceContextRows(offer, rentPriceContext(offer, q.totalPerHour, priceStats)),
    ...rentalRow(offer, plan, bidSearch),
    ...(failover ? [{ label: `$(sync) ${failover.title}`, description: failover.detail }] : []),
    {
      label: vscode.l10n.t('Disk {0}/h', formatDollars(q.diskPerHour)),
      description: vscode.l10n.t('{0} GB, billed until destroyed', plan.disk),
    },
    q.creditAfterDay === undefined
      ? {
          label: vscode.l10n.t('Credit: unknown'),
          description: vscode.l10n.t('not reported to this key; this rent is not checked against it'),
        }
      : {
          label: vscode.l10n.t('Credit after a day: {0}', formatDollars(q.creditAfterDay)),
          description: vscode.l10n.t('now {0}', formatDollars(credit!)),
        },
    {
      label: `${what}`,
      description: [
        describeLaunch(plan, templateMode),
        `"${plan.label}"`,
        ...(plan.onstart ? [vscode.l10n.t('with start-up script')] : []),
      ].join(' · '),
    },
    plan.template
      ? {
          label: vscode.l10n.t('$(watch) No idle stop'),
          description: vscode.l10n.t("a template's own start-up script runs; the watchdog cannot be added"),
        }
      : plan.idleStopMinutes
        ? {
            label: vscode.l10n.t('$(watch) Idle stop after {0} min', plan.idleStopMinutes),
            description: vscode.l10n.t('stops itself when the GPU and SSH are idle, even with this window closed · select to turn off'),
            value: 'toggleIdle',
          }
        : { label: vscode.l10n.t('$(watch) No idle stop'), description: vscode.l10n.t('select to turn it on'), value: 'toggleIdle' },
    {
      label: `$(symbol-variable) ${describeRentEnv(plan.env) ?? vscode.l10n.t('Environment variables…')}`,
      description:
        plan.env && Object.keys(plan.env).length
          ? vscode.l10n.t('for this rent only · select to change')
          : vscode.l10n.t('optional, for this rent only'),
      value: 'env',
    },
    ...(volume === undefined
      ? []
      : [
          volume === 'none'
            ? {
                label: vscode.l10n.t('$(database) No volume'),
                description: vscode.l10n.t('select to attach or create one on this machine'),
                value: 'volume',
              }
            : {
                label: vscode.l10n.t('$(database) Volume: {0}', volume.text),
                description: vscode.l10n.t('select to change'),
                value: 'volume',
              },
        ]),
  ];
  return pickStep(ctx, {
    placeholder: vscode.l10n.t('Renting starts billing once the instance runs. Press Enter to rent, Escape to cancel.'),
    items,
  });
}

/** "18% under the 7-day median" for the offer's price per GPU, with the median it was compared with. */
function priceContextRows(offer: Offer, context: PriceContext | undefined): PickItem<string>[] {
  if (!context) return [];
  const icon = context.relation === 'under' ? '$(arrow-down)' : context.relation === 'over' ? '$(arrow-up)' : '$(dash)';
  const text = context.text.charAt(0).toUpperCase() + context.text.slice(1);
  return [
    {
      label: `${icon} ${text}`,
      description: vscode.l10n.t('per GPU; the median for {0} is {1}/GPU/h', offer.gpu_name, formatDollars(context.medianPerGpu)),
    },
  ];
}
