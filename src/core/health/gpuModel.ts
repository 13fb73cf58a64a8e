/**
 * Whether the GPU nvidia-smi names is the model an offer names. The service lists a short model
 * ("H100 SXM", "RTX 4090", "A100 PCIE", "RTX 6000Ada", "Tesla V100"); the driver gives the product
 * name ("NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090", "NVIDIA A100-SXM4-80GB", "NVIDIA RTX
 * 6000 Ada Generation", "Tesla V100-SXM2-16GB").
 *
 * The rule: both names are cut into lower-case words (at spaces, "-" and "_", and between a number
 * and a word that follows it: "6000Ada" is "6000 ada"); brand and memory words are dropped (NVIDIA,
 * GeForce, Tesla, Quadro, RTX, GTX, "Generation", a size such as "80GB", a memory type such as HBM3
 * or GDDR6X). Then
 * - the model words (those with a digit: "h100", "4090", "a6000", "l40s") must be the same;
 * - the variant words (Ti, Super, Ada, D, Laptop, Mobile) must be the same: a 4070 Ti is not a 4070;
 * - the form factor (SXM in any generation, PCIe, NVL) must agree only when both names state one:
 *   the driver calls an H100 SXM "H100 80GB HBM3", so a name without one matches either.
 * A name with no model word (an unknown product) matches only the same words. Memory size is not
 * read from the name: the health check compares the VRAM itself.
 */

const BRAND = new Set(['nvidia', 'geforce', 'tesla', 'quadro', 'rtx', 'gtx', 'generation', 'gb', 'graphics']);
const VARIANTS = new Set(['ti', 'super', 'ada', 'd', 'laptop', 'mobile']);

interface ModelWords {
  models: string[];
  variants: string[];
  form?: 'sxm' | 'pcie' | 'nvl';
  rest: string[];
}

function words(name: string): ModelWords {
  const tokens = name
    .toLowerCase()
    .replace(/\b\d+\s*gb\b/g, ' ')
    .replace(/(\d)([a-z]{2,})/g, '$1 $2')
    .split(/[\s\-_/]+/)
    .filter((w) => w !== '' && !BRAND.has(w) && !/^(hbm\w*|g?ddr\w*)$/.test(w));
  const out: ModelWords = { models: [], variants: [], rest: [] };
  for (const w of tokens) {
    if (/^sxm\d*$/.test(w)) out.form = 'sxm';
    else if (w === 'pcie' || w === 'nvl') out.form = w;
    else if (VARIANTS.has(w)) out.variants.push(w);
    else if (/\d/.test(w)) out.models.push(w);
    else out.rest.push(w);
  }
  return out;
}

const same = (a: readonly string[], b: readonly string[]) => [...a].sort().join(' ') === [...b].sort().join(' ');

/** Whether `actual` (nvidia-smi's name) is the model `offered` (the service's name); see the rule above. */
export function sameGpuModel(offered: string, actual: string): boolean {
  const o = words(offered);
  const a = words(actual);
  if (o.models.length === 0 || a.models.length === 0)
    return same([...o.models, ...o.rest], [...a.models, ...a.rest]) && same(o.variants, a.variants);
  if (!same(o.models, a.models) || !same(o.variants, a.variants)) return false;
  return o.form === undefined || a.form === undefined || o.form === a.form;
}
