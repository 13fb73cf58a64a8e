import type { Instance } from '../api/instances';
import { visibleText } from '../text';

/** The instance's GPUs: "RTX 4090 ×2", or the model alone for one. */
export function gpuSummary(instance: Pick<Instance, 'gpu_name' | 'num_gpus'>): string {
  const name = instance.gpu_name ?? 'GPU';
  const count = instance.num_gpus ?? 1;
  return count > 1 ? `${name} ×${count}` : name;
}

/** How lists, the status bar and the log name an instance: its label, or its GPUs and id. */
export function instanceLabel(instance: Pick<Instance, 'id' | 'label' | 'gpu_name' | 'num_gpus'>): string {
  return instance.label || `${gpuSummary(instance)} #${instance.id}`;
}

/**
 * How a sentence names an instance: `"train" (RTX 4090 ×2, #42)`, or `RTX 4090 ×2 #42` when it has
 * no label. The label and the GPU's name are the service's text: a bidi control or a zero-width
 * character in them shows as its escape (core/text.ts), so it cannot turn the sentence around, and
 * a long label is cut.
 */
export function instanceName(instance: Pick<Instance, 'id' | 'label' | 'gpu_name' | 'num_gpus'>): string {
  const gpus = visibleText(gpuSummary(instance));
  return instance.label ? `"${visibleText(instance.label)}" (${gpus}, #${instance.id})` : `${gpus} #${instance.id}`;
}
