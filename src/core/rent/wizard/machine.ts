import { formatDollars } from '../../format';
import { l10n } from '../../l10n';
import { boxProblem, boxValue, decimalText, readBox } from '../../numbers';
import { isRentRuntype, type LaunchMode, type RentRuntype } from '../launchMode';
import { rentDiskBox } from '../plan';
import { quoteRent } from '../quote';
import { BACK, CANCEL, type PickItem } from '../steps';
import type { StepMove, WizardState } from './state';

/** Step 2: the disk in GB, up to what the machine has free, with the price as the user types. */
export async function diskStep(state: WizardState): Promise<StepMove> {
  const { plan, input } = state;
  const box = rentDiskBox(input.offer);
  const r = await state.ports.steps.input(state.ctx(2), {
    prompt: l10n.t('Disk size in GB (up to {0}).', box.max),
    value: plan.disk === undefined ? '' : decimalText(plan.disk),
    validate: (v) => boxProblem(v, box),
    describe: (v) => {
      const gb = readBox(v, box).value;
      if (gb === undefined) return '';
      const q = quoteRent(input.offer, gb, input.credit, { bid: plan.bid, bidSearch: input.bidSearch ?? false });
      return l10n.t('Disk: {0}/h; total {1}/h.', formatDollars(q.diskPerHour), formatDollars(q.totalPerHour));
    },
  });
  if (r === BACK || r === CANCEL) return r;
  plan.disk = boxValue(r, box);
  return 'next';
}

type Connection = RentRuntype | 'template';

/**
 * Step 3: how to connect. Direct SSH first where the machine has open ports; with a template, its own
 * mode first and taken by default (a runtype sent would replace it).
 */
export async function connectionStep(state: WizardState): Promise<StepMove> {
  const { plan, input } = state;
  const direct = (input.offer.direct_port_count ?? 0) > 0;
  const items = connectionItems(input.offer.direct_port_count ?? 0, plan.template !== undefined);
  if (plan.template) items.unshift(templateModeItem(await state.modeOf(plan.template)));
  const r = await state.ports.steps.pick<Connection>(state.ctx(3), {
    placeholder: l10n.t('How to connect'),
    items,
    activeValue: plan.runtype ?? (plan.template ? 'template' : direct ? 'ssh_direct' : 'ssh_proxy'),
  });
  if (r === BACK || r === CANCEL) return r;
  if (r === 'template') plan.runtype = undefined;
  else if (isRentRuntype(r)) plan.runtype = r;
  return 'next';
}

function connectionItems(directPorts: number, template: boolean): PickItem<Connection>[] {
  const direct = directPorts > 0;
  // With a template, each mode says it replaces the template's own.
  const instead = (text: string) => (template ? l10n.t("{0}, instead of the template's mode", text) : text);
  const jupyter = instead(l10n.t('a Jupyter server as well; Open Jupyter opens it'));
  return [
    ...(direct
      ? [
          {
            label: l10n.t('Direct SSH'),
            description: instead(l10n.t("to the machine's own address ({0} ports open)", String(directPorts))),
            value: 'ssh_direct' as const,
          },
        ]
      : []),
    {
      label: l10n.t('SSH through the proxy'),
      description: instead(direct ? l10n.t('works behind any firewall; a little slower') : l10n.t('this machine has no direct ports')),
      value: 'ssh_proxy',
    },
    ...(direct
      ? [{ label: l10n.t('Jupyter and SSH on direct ports'), description: jupyter, value: 'jupyter_direc ssh_direc ssh_proxy' as const }]
      : []),
    { label: l10n.t('Jupyter and SSH through the proxy'), description: jupyter, value: 'jupyter_proxy ssh_proxy' },
  ];
}

/** The service takes the template's mode when the rent names none: the row that keeps it, saying which when it was read. */
function templateModeItem(mode: LaunchMode | undefined): PickItem<Connection> {
  return {
    label: mode ? l10n.t("The template's mode: {0}", mode.text) : l10n.t("The template's own mode"),
    description: mode
      ? mode.kind === 'args'
        ? l10n.t('runs its entrypoint; Connect cannot reach it')
        : l10n.t('as the template was saved')
      : l10n.t('the template could not be read to say which'),
    value: 'template',
  };
}
