/// <reference lib="dom" />
/**
 * A cluster's row in the offers grid while grouping by cluster: one cell across the columns with
 * what core's groupByCluster says of the group, and its Rent Cluster… button. The grid's pooled
 * rows carry this cell after their column cells and show either.
 */
import type { ClusterGroup } from '../../core/offers/explorer/clusters';
import { l10n } from '../../core/l10n';
import { h, icon } from './dom';

/** The cell a pooled row shows when it draws a cluster, hidden until then. */
export function groupCell(columns: number): HTMLElement {
  // Out of the tab order, as the grid moves with aria-activedescendant: Enter on the row does the same.
  const rent = h(
    'button',
    {
      type: 'button',
      class: 'link-button',
      'data-action': 'rent-cluster',
      tabindex: -1,
      title: l10n.t('Rent nodes of this cluster (Enter)'),
    },
    icon('server-environment'),
    l10n.t('Rent Cluster…'),
  );
  return h(
    'div',
    { class: 'cell group-cell', role: 'gridcell', 'aria-colindex': 1, 'aria-colspan': columns, hidden: true },
    h('span', { class: 'group-text' }),
    rent,
  );
}

/** Draws a cluster's row into a pooled row. */
export function fillGroupRow(row: HTMLElement, group: ClusterGroup, position: number, selected: boolean, columns: number): void {
  row.id = `cluster-row-${group.clusterId}`;
  delete row.dataset['offerId'];
  row.dataset['clusterId'] = String(group.clusterId);
  row.setAttribute('aria-rowindex', String(position + 2));
  row.setAttribute('aria-selected', String(selected));
  row.classList.toggle('selected', selected);
  row.classList.add('group');
  row.classList.remove('member');
  const cells = row.children;
  for (let i = 0; i < columns; i++) (cells[i] as HTMLElement).hidden = true;
  const cell = cells[columns] as HTMLElement;
  cell.hidden = false;
  const text = cell.firstElementChild!;
  if (text.textContent !== group.text) text.textContent = group.text;
}

/** Makes a pooled row an offer's again; `member` indents it under its cluster while grouping. */
export function showOfferCells(row: HTMLElement, member: boolean): void {
  row.classList.toggle('member', member);
  if (!row.classList.contains('group')) return;
  row.classList.remove('group');
  delete row.dataset['clusterId'];
  const cells = row.children;
  for (let i = 0; i < cells.length - 1; i++) (cells[i] as HTMLElement).hidden = false;
  (cells[cells.length - 1] as HTMLElement).hidden = true;
}

/** The cluster of the row an event hit, if it is a cluster's row. */
export function rowClusterId(target: EventTarget | null): number | undefined {
  const row = (target as HTMLElement | null)?.closest?.('.row[data-cluster-id]') as HTMLElement | null;
  const id = Number(row?.dataset['clusterId']);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
