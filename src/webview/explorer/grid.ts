/// <reference lib="dom" />
/**
 * The offers table: a virtualized ARIA grid. Only the rows in view (and a few around them) are in
 * the DOM, reused as it scrolls, so 10,000 offers cost what 50 do. Headers sort (Enter or click;
 * shift adds a second key) and resize (drag the edge, or Alt+Left/Right). While grouping by
 * cluster, a group's row (drawn by groupRow.ts) comes before its offers; Enter on it rents the cluster.
 */
import type { Offer } from '../../core/api/offers';
import { clampWidth, columnById, columnWidth, type ColumnId, type ColumnLayout, type RowContext } from '../../core/offers/explorer/columns';
import type { SortKey } from '../../core/offers/explorer/rows';
import { groupIndexOf, type ClusterGroup } from '../../core/offers/explorer/clusters';
import { l10n } from '../../core/l10n';
import { h } from './dom';
import { fillGroupRow, groupCell, rowClusterId, showOfferCells } from './groupRow';

export const ROW_HEIGHT = 22;
const OVERSCAN = 8;
const RESIZE_STEP = 16;

export interface GridEvents {
  sort(column: ColumnId, add: boolean): void;
  /** The selection moved (by keyboard or click); `position` is the row's place in the current order. */
  select(offerId: number): void;
  /** Enter on a row, or a double click: rent it. */
  activate(offerId: number): void;
  /** The selection moved to a cluster's row. */
  selectCluster(clusterId: number): void;
  /** Enter on a cluster's row, a double click, or its Rent Cluster… button. */
  rentCluster(clusterId: number): void;
  /** A column was resized. */
  layout(layout: ColumnLayout): void;
  scrolled(top: number): void;
}

export class OfferGrid {
  readonly root: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly head: HTMLElement;
  private readonly spacer: HTMLElement;
  private pool: HTMLElement[] = [];
  private offers: readonly Offer[] = [];
  private ctx: RowContext = { type: 'on-demand' };
  /** Offer indices, or a group's row (negative, see clusters.ts) while grouping. */
  private order: readonly number[] = [];
  private groups: readonly ClusterGroup[] = [];
  private layout: ColumnLayout = { visible: [], widths: {} };
  private sort: readonly SortKey[] = [];
  private selectedId: number | undefined;
  private selectedCluster: number | undefined;
  private position = -1;
  private frame = 0;

  constructor(private readonly events: GridEvents) {
    this.head = h('div', { class: 'row header', role: 'row', 'aria-rowindex': 1 });
    this.spacer = h('div', { class: 'spacer', role: 'rowgroup' });
    this.scroller = h('div', { class: 'grid-scroll' }, h('div', { class: 'head', role: 'rowgroup' }, this.head), this.spacer);
    this.root = h(
      'div',
      { class: 'grid', role: 'grid', 'aria-label': l10n.t('Offers'), tabindex: 0, 'aria-multiselectable': 'false' },
      this.scroller,
    );
    this.scroller.addEventListener('scroll', () => {
      if (!this.frame)
        this.frame = requestAnimationFrame(() => ((this.frame = 0), this.renderRows(), this.events.scrolled(this.scroller.scrollTop)));
    });
    this.root.addEventListener('keydown', (e) => this.onKey(e));
    this.spacer.addEventListener('click', (e) => {
      const id = rowOfferId(e.target);
      const cluster = rowClusterId(e.target);
      if (id !== undefined) this.events.select(id);
      else if (cluster !== undefined) {
        this.events.selectCluster(cluster);
        if ((e.target as HTMLElement | null)?.closest?.('[data-action=rent-cluster]')) return this.events.rentCluster(cluster);
      } else return;
      this.root.focus({ preventScroll: true });
    });
    this.spacer.addEventListener('dblclick', (e) => {
      const id = rowOfferId(e.target);
      const cluster = rowClusterId(e.target);
      if (id !== undefined) this.events.activate(id);
      else if (cluster !== undefined && !(e.target as HTMLElement | null)?.closest?.('[data-action=rent-cluster]'))
        this.events.rentCluster(cluster);
    });
    new ResizeObserver(() => this.renderRows()).observe(this.scroller);
  }

  get scrollTop(): number {
    return this.scroller.scrollTop;
  }

  /** New offers, order, columns, sort or groups: rebuilds what changed and draws the rows in view. */
  show(
    offers: readonly Offer[],
    ctx: RowContext,
    order: readonly number[],
    layout: ColumnLayout,
    sort: readonly SortKey[],
    groups: readonly ClusterGroup[] = [],
  ): void {
    const columnsChanged = layout !== this.layout;
    this.offers = offers;
    this.groups = groups;
    this.ctx = ctx;
    this.order = order;
    this.sort = sort;
    this.layout = layout;
    if (columnsChanged) this.buildColumns();
    this.updateHeader();
    this.spacer.style.height = `${order.length * ROW_HEIGHT}px`;
    this.root.setAttribute('aria-rowcount', String(order.length + 1));
    this.root.setAttribute('aria-colcount', String(layout.visible.length));
    this.position = this.selectedPosition();
    this.renderRows();
  }

  /** Marks an offer as selected and scrolls it into view; undefined clears the selection. */
  setSelected(offerId: number | undefined, reveal = true): void {
    this.selectedId = offerId;
    this.selectedCluster = undefined;
    this.afterSelect(reveal);
  }

  /** Marks a cluster's row as selected (while grouping) and scrolls it into view. */
  setSelectedCluster(clusterId: number, reveal = true): void {
    this.selectedId = undefined;
    this.selectedCluster = clusterId;
    this.afterSelect(reveal);
  }

  private afterSelect(reveal: boolean): void {
    this.position = this.selectedPosition();
    if (reveal && this.position >= 0) this.reveal(this.position);
    this.renderRows();
  }

  scrollTo(top: number): void {
    this.scroller.scrollTop = top;
    this.renderRows();
  }

  /** Rows that fit in view: PageUp/PageDown move by this. */
  private get pageRows(): number {
    return Math.max(1, Math.floor((this.scroller.clientHeight - this.head.offsetHeight) / ROW_HEIGHT) - 1);
  }

  /** Where the selected offer or cluster row is in the order; -1 when it is not shown. */
  private selectedPosition(): number {
    const { selectedId, selectedCluster, order } = this;
    if (selectedId !== undefined) {
      for (let i = 0; i < order.length; i++) if (order[i]! >= 0 && this.offers[order[i]!]!.id === selectedId) return i;
    } else if (selectedCluster !== undefined) {
      for (let i = 0; i < order.length; i++) if (order[i]! < 0 && this.groupAt(i).clusterId === selectedCluster) return i;
    }
    return -1;
  }

  private groupAt(position: number): ClusterGroup {
    return this.groups[groupIndexOf(this.order[position]!)]!;
  }

  private reveal(position: number): void {
    const top = position * ROW_HEIGHT;
    const view = this.scroller.clientHeight - this.head.offsetHeight;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > this.scroller.scrollTop + view) this.scroller.scrollTop = top + ROW_HEIGHT - view;
  }

  private onKey(e: KeyboardEvent): void {
    if (e.target !== this.root) return;
    const n = this.order.length;
    if (n === 0) return;
    let next: number;
    switch (e.key) {
      case 'ArrowDown':
        next = this.position < 0 ? 0 : this.position + 1;
        break;
      case 'ArrowUp':
        next = this.position < 0 ? 0 : this.position - 1;
        break;
      case 'PageDown':
        next = Math.max(0, this.position) + this.pageRows;
        break;
      case 'PageUp':
        next = Math.max(0, this.position) - this.pageRows;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = n - 1;
        break;
      case 'Enter':
        if (this.selectedId !== undefined) this.events.activate(this.selectedId);
        else if (this.selectedCluster !== undefined && this.position >= 0) this.events.rentCluster(this.selectedCluster);
        e.preventDefault();
        return;
      default:
        return;
    }
    e.preventDefault();
    next = Math.min(n - 1, Math.max(0, next));
    const row = this.order[next]!;
    if (row < 0) this.events.selectCluster(this.groupAt(next).clusterId);
    else this.events.select(this.offers[row]!.id);
  }

  private buildColumns(): void {
    this.head.replaceChildren(
      ...this.layout.visible.map((id, i) => {
        const spec = columnById(id);
        const resizer = h('div', { class: 'resizer', 'aria-hidden': 'true' });
        const cell = h(
          'div',
          {
            class: `cell ${spec.kind}`,
            role: 'columnheader',
            tabindex: 0,
            'aria-colindex': i + 1,
            'aria-label': spec.name,
            title: l10n.t('{0}: Enter or click sorts, Shift adds a second key, Alt+Left/Right resizes', spec.name),
            'data-column': id,
          },
          h('span', { class: 'label' }, spec.label),
          h('span', { class: 'sort-icon' }),
          resizer,
        );
        cell.style.width = `${columnWidth(this.layout, id)}px`;
        cell.addEventListener('click', (e) => {
          if ((e.target as HTMLElement).classList.contains('resizer')) return;
          this.events.sort(id, e.shiftKey);
        });
        cell.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            e.stopPropagation();
            this.events.sort(id, e.shiftKey);
          } else if (e.altKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
            e.preventDefault();
            e.stopPropagation();
            this.resize(id, columnWidth(this.layout, id) + (e.key === 'ArrowLeft' ? -RESIZE_STEP : RESIZE_STEP), true);
          } else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
            e.preventDefault();
            e.stopPropagation();
            const sibling = e.key === 'ArrowLeft' ? cell.previousElementSibling : cell.nextElementSibling;
            (sibling as HTMLElement | null)?.focus();
          } else if (e.key === 'ArrowDown') {
            e.preventDefault();
            e.stopPropagation();
            this.root.focus();
          }
        });
        resizer.addEventListener('pointerdown', (e) => this.dragResize(e, id, resizer));
        return cell;
      }),
    );
    for (const row of this.pool) row.remove();
    this.pool = [];
  }

  private dragResize(e: PointerEvent, id: ColumnId, handle: HTMLElement): void {
    e.preventDefault();
    e.stopPropagation();
    const startX = e.clientX;
    const startW = columnWidth(this.layout, id);
    handle.setPointerCapture(e.pointerId);
    const move = (m: PointerEvent) => this.resize(id, startW + m.clientX - startX, false);
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      this.events.layout(this.layout);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
  }

  private resize(id: ColumnId, width: number, commit: boolean): void {
    const w = clampWidth(width);
    // A new layout object, so the next show() keeps the built cells (only widths changed).
    this.layout = { visible: this.layout.visible, widths: { ...this.layout.widths, [id]: w } };
    const index = this.layout.visible.indexOf(id);
    (this.head.children[index] as HTMLElement | undefined)?.style.setProperty('width', `${w}px`);
    for (const row of this.pool) (row.children[index] as HTMLElement | undefined)?.style.setProperty('width', `${w}px`);
    if (commit) this.events.layout(this.layout);
  }

  private updateHeader(): void {
    this.layout.visible.forEach((id, i) => {
      const cell = this.head.children[i] as HTMLElement;
      const key = this.sort.findIndex((k) => k.column === id);
      const icon = cell.querySelector('.sort-icon')!;
      if (key < 0) {
        cell.removeAttribute('aria-sort');
        icon.className = 'sort-icon';
        icon.textContent = '';
      } else {
        const dir = this.sort[key]!.direction;
        // aria-sort belongs on the primary key only; the secondary shows its arrow and a "2".
        if (key === 0) cell.setAttribute('aria-sort', dir === 'asc' ? 'ascending' : 'descending');
        else cell.removeAttribute('aria-sort');
        icon.className = `sort-icon codicon codicon-arrow-${dir === 'asc' ? 'up' : 'down'}`;
        icon.textContent = key > 0 ? String(key + 1) : '';
      }
    });
  }

  private newRow(): HTMLElement {
    const row = h('div', { class: 'row', role: 'row' });
    this.layout.visible.forEach((id, i) => {
      const cell = h('div', { class: `cell ${columnById(id).kind}`, role: 'gridcell', 'aria-colindex': i + 1 });
      cell.style.width = `${columnWidth(this.layout, id)}px`;
      row.append(cell);
    });
    // Last, so that a cell's place is its column's (the e2e test reads cells by it).
    row.append(groupCell(this.layout.visible.length));
    this.spacer.append(row);
    return row;
  }

  private renderRows(): void {
    const n = this.order.length;
    const view = Math.max(0, this.scroller.clientHeight - this.head.offsetHeight);
    const top = this.scroller.scrollTop;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(n, Math.ceil((top + view) / ROW_HEIGHT) + OVERSCAN);
    // The selected row stays in the DOM even when scrolled away, so aria-activedescendant points at something.
    const count = Math.max(0, last - first);
    while (this.pool.length < count + 1) this.pool.push(this.newRow());
    for (let k = 0; k < this.pool.length; k++) {
      const row = this.pool[k]!;
      const position = k < count ? first + k : this.position >= 0 && (this.position < first || this.position >= last) ? this.position : -1;
      if (position < 0) {
        row.hidden = true;
        row.removeAttribute('id');
        continue;
      }
      row.hidden = false;
      this.fillRow(row, position);
    }
    const selected =
      this.position < 0
        ? undefined
        : this.selectedId !== undefined
          ? `offer-row-${this.selectedId}`
          : this.selectedCluster !== undefined
            ? `cluster-row-${this.selectedCluster}`
            : undefined;
    if (selected) this.root.setAttribute('aria-activedescendant', selected);
    else this.root.removeAttribute('aria-activedescendant');
  }

  private fillRow(row: HTMLElement, position: number): void {
    row.style.transform = `translateY(${position * ROW_HEIGHT}px)`;
    if (this.order[position]! < 0) {
      const group = this.groupAt(position);
      fillGroupRow(row, group, position, group.clusterId === this.selectedCluster, this.layout.visible.length);
      return;
    }
    showOfferCells(row, this.groups.length > 0);
    const offer = this.offers[this.order[position]!]!;
    row.id = `offer-row-${offer.id}`;
    row.dataset['offerId'] = String(offer.id);
    row.setAttribute('aria-rowindex', String(position + 2));
    const selected = offer.id === this.selectedId;
    row.setAttribute('aria-selected', String(selected));
    row.classList.toggle('selected', selected);
    const cells = row.children;
    for (let i = 0; i < this.layout.visible.length; i++) {
      const id = this.layout.visible[i]!;
      const cell = cells[i] as HTMLElement;
      const spec = columnById(id);
      const text = spec.text(offer, this.ctx);
      if (cell.textContent !== text) cell.textContent = text;
      if (id === 'priceContext') {
        const delta = spec.value(offer, this.ctx);
        cell.classList.toggle('under', typeof delta === 'number' && delta < 0);
        cell.classList.toggle('over', typeof delta === 'number' && delta > 0);
      }
    }
  }
}

function rowOfferId(target: EventTarget | null): number | undefined {
  const row = (target as HTMLElement | null)?.closest?.('.row[data-offer-id]') as HTMLElement | null;
  const id = Number(row?.dataset['offerId']);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
