import type { Template, TemplatesApi } from '../api/templates';
import type { Logger } from '../log';
import { l10n } from '../l10n';

/**
 * How an instance is launched: Jupyter (with SSH through the proxy, or both mapped directly), SSH
 * (proxy or direct), or the image's own entrypoint (`args`: no SSH and no Jupyter are added).
 */
export interface LaunchMode {
  kind: 'jupyter' | 'ssh' | 'args';
  direct: boolean;
  /** For the rent confirmation, e.g. "Jupyter and SSH via proxy". */
  text: string;
}

/**
 * The runtypes a rent may set itself, overriding a template's own mode: SSH, or Jupyter with SSH
 * in the words the service's CLI sends for `--jupyter` and `--jupyter --direct` (and the service
 * reports back in `image_runtype`).
 */
export type RentRuntype = 'ssh_direct' | 'ssh_proxy' | 'jupyter_proxy ssh_proxy' | 'jupyter_direc ssh_direc ssh_proxy';

/** Whether a picked value is a runtype a rent may send. */
export function isRentRuntype(value: unknown): value is RentRuntype {
  return (
    value === 'ssh_direct' || value === 'ssh_proxy' || value === 'jupyter_proxy ssh_proxy' || value === 'jupyter_direc ssh_direc ssh_proxy'
  );
}

/**
 * The mode a template launches in when the rent names no `runtype` (the service then takes the
 * template's). Its `runtype` decides (`jupyter`, `ssh`, `args`), with `jup_direct`/`ssh_direct`
 * for direct ports; any other template that asks for SSH (`use_ssh`) is SSH, the rest `args`.
 */
export function templateLaunchMode(t: Pick<Template, 'runtype' | 'use_ssh' | 'ssh_direct' | 'jup_direct'>): LaunchMode {
  const runtype = (t.runtype ?? '').trim().toLowerCase();
  if (runtype === 'jupyter') return mode('jupyter', t.jup_direct === true);
  if (runtype === 'ssh' || t.use_ssh === true) return mode('ssh', t.ssh_direct === true);
  return mode('args', false);
}

/**
 * The mode of a runtype as a rent sends it or an instance reports it in `image_runtype`
 * (`ssh_direct`, `jupyter_proxy ssh_proxy`, `jupyter_direc ssh_direc ssh_proxy`, `args`, ...).
 */
export function runtypeLaunchMode(runtype: string): LaunchMode {
  const words = runtype.toLowerCase().split(/\s+/).filter(Boolean);
  const direct = words.some((w) => w.startsWith('ssh_direc') || w.startsWith('jupyter_direc'));
  if (words.some((w) => w.startsWith('jupyter'))) return mode('jupyter', direct);
  if (words.some((w) => w.startsWith('ssh'))) return mode('ssh', direct);
  return mode('args', false);
}

function mode(kind: LaunchMode['kind'], direct: boolean): LaunchMode {
  switch (kind) {
    case 'jupyter':
      return { kind, direct, text: direct ? l10n.t('Jupyter and SSH on direct ports') : l10n.t('Jupyter and SSH via proxy') };
    case 'ssh':
      return { kind, direct, text: direct ? l10n.t('direct SSH') : l10n.t('SSH via proxy') };
    case 'args':
      return { kind, direct: false, text: l10n.t("the image's own entrypoint, without SSH") };
  }
}

/**
 * What the confirmation says about the launch mode. With a template and no runtype of the rent's
 * own, the template's mode (or that it could not be read); with one, that it replaces the
 * template's; without a template, the rent's runtype.
 */
export function describeLaunch(plan: { template?: string; runtype?: RentRuntype }, templateMode: LaunchMode | undefined): string {
  const own = plan.runtype ? runtypeLaunchMode(plan.runtype).text : undefined;
  if (!plan.template) return own ?? runtypeLaunchMode('ssh_proxy').text;
  if (own)
    return templateMode
      ? l10n.t("{0}, instead of the template's {1}", own, templateMode.text)
      : l10n.t("{0}, instead of the template's own mode", own);
  if (!templateMode) return l10n.t("the template's own launch mode (the template could not be read to say which)");
  return templateMode.kind === 'args'
    ? l10n.t('{0}, as the template says: Connect cannot reach it', templateMode.text)
    : l10n.t('{0}, as the template says', templateMode.text);
}

/**
 * The `runtype` a rent sends. With a template, only one the user chose: body values override the
 * template's, so sending a default would turn a Jupyter or entrypoint template into SSH. Without a
 * template, the user's choice, or SSH through the proxy.
 */
export function rentRuntype(plan: { template?: string; runtype?: RentRuntype }): RentRuntype | undefined {
  if (plan.template) return plan.runtype;
  return plan.runtype ?? 'ssh_proxy';
}

/** A template's own launch mode, read from the template search; undefined (and logged) when it cannot be read. */
export async function readTemplateMode(
  templates: Pick<TemplatesApi, 'search'>,
  hash: string,
  logger: Pick<Logger, 'warn'>,
): Promise<LaunchMode | undefined> {
  try {
    const found = await templates.search({ selectFilters: { hash_id: { eq: hash } } });
    const template = found.find((t) => t.hash_id === hash);
    if (!template) logger.warn(`Template ${hash} was not among the templates this key can read; its launch mode is not known.`);
    return template && templateLaunchMode(template);
  } catch (error) {
    logger.warn(`Could not read template ${hash} for its launch mode: ${String(error)}`);
    return undefined;
  }
}
