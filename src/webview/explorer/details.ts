/// <reference lib="dom" />
/**
 * The selected offer: every column's value, its price against the going rate with the GPU's price
 * history, and what can be done with it (Rent, Copy ID, the machine's or the cluster's other
 * offers). While grouping, the selected cluster: what its row says, its machines, Rent Cluster….
 */
import type { Offer } from '../../core/api/offers';
import type { ClusterGroup } from '../../core/offers/explorer/clusters';
import { COLUMNS, type RowContext } from '../../core/offers/explorer/columns';
import { formatDollars } from '../../core/format';
import { l10n } from '../../core/l10n';
import { h, icon } from './dom';

export interface DetailsActions {
  rent(offer: Offer): void;
  copyId(offer: Offer): void;
  machineOffers(offer: Offer): void;
  clusterOffers(offer: Offer): void;
  rentCluster(group: ClusterGroup): void;
}

export class DetailsPane {
  readonly root: HTMLElement;
  private offer: Offer | undefined;

  constructor(private readonly actions: DetailsActions) {
    this.root = h('section', { class: 'details', 'aria-label': l10n.t('Selected offer'), 'aria-live': 'off' });
    this.show(undefined, { type: 'on-demand' }, undefined);
  }

  /** `chart` is the GPU's price history as SVG text from core's priceHistorySvg (no script, no style, escaped names). */
  show(offer: Offer | undefined, ctx: RowContext, chart: string | undefined): void {
    this.offer = offer;
    if (!offer) {
      this.root.replaceChildren(h('p', { class: 'hint' }, l10n.t('Select an offer in the table or on the plot to see it here.')));
      return;
    }
    const rent = this.button(l10n.t('Rent'), 'rocket', () => this.offer && this.actions.rent(this.offer), 'rent');
    const copy = this.button(l10n.t('Copy ID'), 'copy', () => this.offer && this.actions.copyId(this.offer), 'copy-id', true);
    const machine = this.button(
      l10n.t("Machine's Other Offers"),
      'server',
      () => this.offer && this.actions.machineOffers(this.offer),
      'machine',
      true,
    );
    if (offer.machine_id === null || offer.machine_id === undefined) machine.setAttribute('disabled', '');
    const cluster = this.button(
      l10n.t("Cluster's Offers"),
      'server-environment',
      () => this.offer && this.actions.clusterOffers(this.offer),
      'cluster',
      true,
    );
    cluster.hidden = typeof offer.cluster_id !== 'number';
    const context = ctx.priceContext?.(offer);
    const list = h('dl', { class: 'facts' });
    for (const column of COLUMNS) {
      if (column.id === 'gpu' || column.id === 'priceContext') continue;
      const value = column.text(offer, ctx);
      if (value) list.append(h('dt', {}, column.name), h('dd', {}, value));
    }
    list.append(h('dt', {}, l10n.t('host / machine')), h('dd', {}, `${offer.host_id ?? '?'} / ${offer.machine_id ?? '?'}`));
    list.append(h('dt', {}, l10n.t('offer id')), h('dd', {}, String(offer.id)));
    const children: Node[] = [
      h('h2', {}, offer.num_gpus > 1 ? l10n.t('{0} ×{1}', offer.gpu_name, offer.num_gpus) : offer.gpu_name),
      h(
        'p',
        {
          class: `price-context ${context ? (context.delta < 0 ? 'under' : context.delta > 0 ? 'over' : '') : 'none'}`,
          'data-testid': 'price-context',
        },
        context ? l10n.t('Price: {0} for {1}', context.sentence, offer.gpu_name) : l10n.t('No price history for this GPU'),
      ),
    ];
    const svg = chart === undefined ? undefined : chartElement(chart);
    if (svg) children.push(svg);
    children.push(h('div', { class: 'actions' }, rent, copy, machine, cluster), list);
    this.root.replaceChildren(...children);
  }

  /** A cluster's row is selected: its sentence, Rent Cluster…, and one line per machine it adds up. */
  showCluster(group: ClusterGroup, offers: readonly Offer[]): void {
    this.offer = undefined;
    const rent = this.button(l10n.t('Rent Cluster…'), 'server-environment', () => this.actions.rentCluster(group), 'rent-cluster');
    const nodes = h('ul', { class: 'nodes', 'aria-label': l10n.t('Machines of this cluster') });
    for (const i of group.nodes) {
      const o = offers[i]!;
      const gpus = o.num_gpus > 1 ? l10n.t('{0} ×{1}', o.gpu_name, o.num_gpus) : o.gpu_name;
      nodes.append(h('li', {}, l10n.t('{0} at {1}/h, offer {2}', gpus, formatDollars(o.dph_total), o.id)));
    }
    this.root.replaceChildren(
      h('h2', {}, l10n.t('Cluster {0}', group.clusterId)),
      h('p', { 'data-testid': 'cluster-summary' }, group.text),
      h('div', { class: 'actions' }, rent),
      nodes,
    );
  }

  private button(label: string, codicon: string, run: () => void, action: string, secondary = false): HTMLElement {
    const b = h('vscode-button', { 'data-action': action, secondary }, icon(codicon), ` ${label}`);
    b.addEventListener('click', run);
    return b;
  }
}

/**
 * The chart's SVG as an element of this page, so the stylesheet colours its classes with the
 * theme. Parsed as an XML document, where nothing runs; anything but one <svg> root is dropped.
 */
function chartElement(svgText: string): Element | undefined {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0 || doc.getElementsByTagName('script').length > 0)
    return undefined;
  return document.importNode(root, true);
}
