import { l10n } from '../../l10n';
import { BACK, CANCEL, type PickItem, type StepResult } from '../steps';
import type { StepMove, WizardState } from './state';

/** Images the first step offers to everyone, each with what it holds. */
export const IMAGE_PRESETS: ReadonlyArray<{ image: string; detail: string }> = [
  { image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel', detail: l10n.t('PyTorch 2.5 with CUDA 12.4 and cuDNN 9') },
  { image: 'nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04', detail: l10n.t('CUDA 12.4 toolkit on Ubuntu 22.04') },
  { image: 'vllm/vllm-openai:latest', detail: l10n.t('vLLM with an OpenAI-compatible server') },
  { image: 'ubuntu:22.04', detail: l10n.t('Plain Ubuntu 22.04') },
];

type Source = { image: string } | { template: string };
type SourceChoice = Source | 'otherImage' | 'template';

const STEP = 1;

/** Step 1: what runs: a recent image or template, a preset, any image typed, or a template by hash. */
export async function sourceStep(state: WizardState): Promise<StepMove> {
  const { plan, input, ports } = state;
  const ctx = state.ctx(STEP);
  const picked = await ports.steps.pick<SourceChoice>(ctx, {
    placeholder: l10n.t('Image to run, or type one (e.g. python:3.12)'),
    items: sourceItems(input.recentImages, input.recentTemplates ?? []),
    acceptTyped: (t) => ({ image: t }),
  });
  let r: StepResult<Source>;
  if (picked === 'otherImage')
    r = await ports.steps
      .input(ctx, {
        prompt: l10n.t('Docker image to run.'),
        value: plan.image ?? '',
        placeholder: 'registry/name:tag',
        validate: (v) => (/^\S+$/.test(v.trim()) ? undefined : l10n.t('Enter an image reference without spaces.')),
      })
      .then((v) => (typeof v === 'string' ? { image: v.trim() } : v));
  else if (picked === 'template')
    r = await ports.steps
      .input(ctx, {
        prompt: l10n.t('Template hash (its settings are used; the disk size below still applies).'),
        value: plan.template ?? '',
        validate: (v) => (/^[A-Za-z0-9]+$/.test(v.trim()) ? undefined : l10n.t('A template hash is letters and digits.')),
      })
      .then((v) => (typeof v === 'string' ? { template: v.trim() } : v));
  else r = picked;
  if (r === BACK || r === CANCEL) return r;
  const wasTemplate = plan.template !== undefined;
  plan.image = 'image' in r ? r.image : undefined;
  plan.template = 'template' in r ? r.template : undefined;
  // From an image to a template: the template's own mode, unless the user picks another.
  if (plan.template && !wasTemplate) plan.runtype = undefined;
  return 'next';
}

function sourceItems(recentImages: readonly string[], recentTemplates: readonly string[]): PickItem<SourceChoice>[] {
  return [
    ...(recentImages.length ? [{ label: l10n.t('Recent'), separator: true }] : []),
    ...recentImages.map((image) => ({ label: image, description: l10n.t('recent'), value: { image } })),
    ...recentTemplates.map((template) => ({
      label: l10n.t('$(symbol-class) template {0}', template.slice(0, 12)),
      description: l10n.t('recent template'),
      value: { template },
    })),
    { label: l10n.t('Presets'), separator: true },
    ...IMAGE_PRESETS.map((p) => ({ label: p.image, description: p.detail, value: { image: p.image } })),
    { label: '', separator: true },
    { label: l10n.t('$(edit) Other image…'), description: l10n.t('any Docker image reference'), value: 'otherImage' },
    { label: l10n.t('$(symbol-class) Template by hash…'), description: l10n.t('a saved template'), value: 'template' },
  ];
}
