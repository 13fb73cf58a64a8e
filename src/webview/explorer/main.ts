/// <reference lib="dom" />
/**
 * The Offer Explorer's webview: filter bar, virtualized table, scatter plot and the selected
 * offer. It sorts and narrows on its own (instant, local); searching, renting and copying go to
 * the extension as messages (src/core/offers/explorer/protocol.ts). What the user arranged (sort,
 * selection, scroll, a query being typed) is kept with setState, so hiding the panel loses nothing.
 */
// First: sets the translator before any module below builds a message while it loads.
import './l10n';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { Offer } from '../../core/api/offers';
import { COLUMNS, DEFAULT_COLUMN_LAYOUT, rowPriceContext, type ColumnLayout, type RowContext } from '../../core/offers/explorer/columns';
import { l10n } from '../../core/l10n';
import {
  EXPLORER_PAGE_SIZE,
  type ExplorerViewState,
  type ExtensionMessage,
  type TimingName,
  type WebviewMessage,
} from '../../core/offers/explorer/protocol';
import { nextSort, OfferTable, readSortKeys, sortAnnouncement, type SortKey } from '../../core/offers/explorer/rows';
import { groupByCluster, groupingAnnouncement, groupingStatus, type ClusterRows } from '../../core/offers/explorer/clusters';
import { priceHistorySvg } from '../../core/offers/priceChart';
import { priceContextFor, pricePerGpu, type GpuPriceStats } from '../../core/offers/priceContext';
import { parseQuery } from '../../core/offers/search';
import { decodeOffers } from '../../core/offers/explorer/transfer';
import type { OfferType } from '../../core/api/offerQuery';
import { DetailsPane } from './details';
import { h, icon } from './dom';
import { FilterBar } from './filters';
import { OfferGrid } from './grid';
import { ScatterPlot } from './plot';
import { offersStatus } from './text';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): ExplorerViewState | undefined;
  setState(state: ExplorerViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const saved = vscode.getState() ?? {};

/** The offers shown, with the fields the extension sent for them; `full` holds those asked for in full (details), by id. */
let offers: readonly Offer[] = [];
let full = new Map<number, Offer>();
let asked = new Set<number>();
let offerType: OfferType = 'on-demand';
let table = new OfferTable([], { type: 'on-demand' });
let rows: readonly number[] = [];
let order: readonly number[] = [];
let sort: SortKey[] = readSortKeys(saved.sort);
let layout: ColumnLayout = DEFAULT_COLUMN_LAYOUT;
let selectedId: number | undefined = typeof saved.selected === 'number' ? saved.selected : undefined;
let stats = new Map<string, GpuPriceStats>();
let restoreScroll = typeof saved.scrollTop === 'number' ? saved.scrollTop : undefined;
/** Grouping by cluster: on or off, what it drew last, and the cluster whose row is selected. */
let grouped = saved.grouped === true;
let grouping: ClusterRows | undefined;
let selectedCluster: number | undefined = grouped && typeof saved.selectedCluster === 'number' ? saved.selectedCluster : undefined;
/** The status line of the last search, before what grouping adds. */
let searchStatus = '';

const ctx = (): RowContext => ({
  type: offerType,
  priceContext: (o) => rowPriceContext(priceContextFor(o, stats.get(o.gpu_name))),
});

const live = h('div', { class: 'sr-only', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
const status = h('span', { class: 'status', 'data-testid': 'status' });
const loadMore = h(
  'vscode-button',
  { secondary: true, hidden: true, 'data-action': 'load-more' },
  icon('fold-down'),
  ' ' + l10n.t('Load {0} more', EXPLORER_PAGE_SIZE.toLocaleString('en-US')),
);
loadMore.addEventListener('click', () => vscode.postMessage({ type: 'loadMore' }));
const columnsButton = h(
  'vscode-button',
  { secondary: true, 'aria-haspopup': 'true', 'aria-expanded': 'false', 'data-action': 'columns' },
  icon('list-selection'),
  ' ' + l10n.t('Columns'),
);
const picker = h('div', { class: 'column-picker', role: 'group', 'aria-label': l10n.t('Columns to show'), hidden: true });
const groupToggle = h(
  'vscode-checkbox',
  {
    'data-action': 'group-by-cluster',
    label: l10n.t('Group by cluster'),
    title: l10n.t('Group offers that share a cluster (a LAN) under one row'),
  },
  l10n.t('Group by cluster'),
) as HTMLElement & { checked: boolean };
groupToggle.checked = grouped;
groupToggle.addEventListener('change', () => setGrouped(groupToggle.checked));

const filterBar = new FilterBar((next) => changeQuery(next));
const grid = new OfferGrid({
  sort: (column, add) => {
    sort = nextSort(sort, column, add);
    timed('sort', () => applyOrder());
    announce();
    save();
  },
  select: (id) => select(id, true),
  activate: (id) => rent(id),
  selectCluster: (clusterId) => selectCluster(clusterId),
  rentCluster: (clusterId) => rentCluster(clusterId),
  layout: (next) => setLayout(next, true),
  scrolled: () => save(),
});
const plot = new ScatterPlot((id) => select(id, true));
const details = new DetailsPane({
  rent: (o) => rent(o.id),
  copyId: (o) => vscode.postMessage({ type: 'copyId', offerId: o.id }),
  machineOffers: (o) => {
    if (typeof o.machine_id === 'number') vscode.postMessage({ type: 'machineOffers', machineId: o.machine_id });
  },
  clusterOffers: (o) => {
    if (typeof o.cluster_id === 'number') vscode.postMessage({ type: 'clusterOffers', clusterId: o.cluster_id });
  },
  rentCluster: (group) => rentCluster(group.clusterId),
});

document.body.append(
  h(
    'main',
    { class: 'explorer' },
    filterBar.root,
    h(
      'div',
      { class: 'toolbar' },
      // First, so that it stays put as the status beside it grows.
      groupToggle,
      status,
      h('span', { class: 'hint' }, l10n.t('Sorting here is local to the explorer; the Offers view keeps its own order.')),
      loadMore,
      h('span', { class: 'picker-anchor' }, columnsButton, picker),
    ),
    h('div', { class: 'panes' }, grid.root, h('aside', { class: 'side' }, plot.root, details.root)),
    live,
  ),
);
buildPicker();
columnsButton.addEventListener('click', () => togglePicker(picker.hidden));
picker.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') {
    togglePicker(false);
    columnsButton.focus();
  }
});
filterBar.draft = typeof saved.draft === 'string' ? saved.draft : undefined;

window.addEventListener('message', (event: MessageEvent<ExtensionMessage>) => receive(event.data));
vscode.postMessage({ type: 'ready' });

function receive(m: ExtensionMessage): void {
  // How long the offers took to arrive, before the page decodes and draws them (for the benchmark).
  if (m.type === 'offers') document.body.dataset['arriveMs'] = String(Date.now() - m.sentAt);
  switch (m.type) {
    case 'layout':
      setLayout(m.layout, false);
      break;
    case 'loading':
      document.body.dataset['state'] = 'loading';
      filterBar.setQuery(m.query, filterBar.draft);
      status.textContent = l10n.t('Searching…');
      break;
    case 'offers': {
      let decoded: readonly Offer[];
      try {
        decoded = decodeOffers(m.offers);
      } catch (error) {
        showError(error instanceof Error ? error.message : String(error));
        break;
      }
      offerType = m.offerType;
      filterBar.setQuery(m.query, filterBar.draft);
      timed('render', () => {
        offers = decoded;
        full = new Map();
        asked = new Set();
        table = new OfferTable(offers, ctx());
        rows = offers.map((_, i) => i);
        applyOrder();
        plot.show(offers, plotRows(), selectedId);
      });
      // From the extension starting to send to the render just drawn: both clocks are this machine's.
      record('transfer', Date.now() - m.sentAt, offers.length);
      if (restoreScroll !== undefined) {
        grid.scrollTo(restoreScroll);
        restoreScroll = undefined;
      }
      loadMore.hidden = !m.canLoadMore;
      searchStatus = offersStatus(offers.length, m.unreadable, m.ownLimit);
      status.classList.remove('error');
      document.body.dataset['state'] = 'ready';
      showStatus();
      showDetails();
      announce();
      break;
    }
    case 'error':
      showError(m.message);
      break;
    case 'priceStats':
      stats = new Map(Object.entries(m.stats as Record<string, GpuPriceStats>));
      table.invalidate('priceContext');
      table = new OfferTable(offers, ctx());
      applyOrder();
      showDetails();
      break;
    case 'offerDetails':
      full.set(m.offer.id, m.offer);
      if (m.offer.id === selectedId) showDetails();
      break;
    case 'notice':
      live.textContent = m.text;
      break;
  }
}

function showError(message: string): void {
  document.body.dataset['state'] = 'error';
  status.textContent = message;
  status.classList.add('error');
  filterBar.showProblem(message);
  live.textContent = message;
}

/** A filter changed here: narrow what is loaded at once, and ask the extension to search with it. */
function changeQuery(next: string): void {
  try {
    const filters = parseQuery(next).filters;
    timed('filter', () => {
      rows = table.matching(filters);
      applyOrder();
      plot.show(offers, plotRows(), selectedId);
    });
    showStatus();
    announce();
  } catch {
    // The filter bar only hands over text that parses; nothing to narrow otherwise.
  }
  save();
  vscode.postMessage({ type: 'setQuery', query: next });
}

function applyOrder(): void {
  order = table.sorted(sort, rows);
  // Grouping is linear in the rows; the grid still draws only the rows in view.
  grouping = grouped ? groupByCluster(offers, order, sort, ctx()) : undefined;
  showGrid();
}

function showGrid(): void {
  grid.show(offers, ctx(), grouping?.rows ?? order, layout, sort, grouping?.groups);
}

/** The plot shows what the table does: while grouping, only offers in a cluster. */
function plotRows(): readonly number[] {
  return grouped ? rows.filter((i) => typeof offers[i]!.cluster_id === 'number') : rows;
}

function setGrouped(on: boolean): void {
  grouped = on;
  if (!on) selectedCluster = undefined;
  timed('group', () => {
    applyOrder();
    plot.show(offers, plotRows(), selectedId);
  });
  showStatus();
  showDetails();
  announce();
  save();
}

function showStatus(): void {
  if (status.classList.contains('error') || document.body.dataset['state'] !== 'ready') return;
  status.textContent = grouping ? [searchStatus, groupingStatus(grouping)].join(' · ') : searchStatus;
}

function select(id: number, reveal: boolean): void {
  selectedId = id;
  selectedCluster = undefined;
  grid.setSelected(id, reveal);
  plot.select(id);
  showDetails();
  save();
}

function selectCluster(clusterId: number): void {
  selectedCluster = clusterId;
  selectedId = undefined;
  grid.setSelectedCluster(clusterId, true);
  plot.select(undefined);
  showDetails();
  save();
}

/** Rent Cluster… with the cluster's offers as the table lists them; the extension checks both against its results. */
function rentCluster(clusterId: number): void {
  const group = grouping?.groups.find((g) => g.clusterId === clusterId);
  if (group) vscode.postMessage({ type: 'rentCluster', clusterId, offerIds: group.members.map((i) => offers[i]!.id) });
}

function showDetails(): void {
  const group = selectedCluster === undefined ? undefined : grouping?.groups.find((g) => g.clusterId === selectedCluster);
  if (group) return details.showCluster(group, offers);
  const row = selectedId === undefined ? undefined : offers.find((o) => o.id === selectedId);
  // The row has what the table shows; the details show the whole offer once the extension sends it.
  const offer = row && (full.get(row.id) ?? row);
  if (row && offer === row && !asked.has(row.id)) {
    asked.add(row.id);
    vscode.postMessage({ type: 'offerDetails', offerId: row.id });
  }
  const gpuStats = offer && stats.get(offer.gpu_name);
  const chart = offer && gpuStats ? priceHistorySvg(gpuStats, { width: 320, height: 90, mark: pricePerGpu(offer) }) : undefined;
  details.show(offer, ctx(), chart);
}

function rent(id: number): void {
  vscode.postMessage({ type: 'rent', offerId: id });
}

function setLayout(next: ColumnLayout, remember: boolean): void {
  layout = next;
  showGrid();
  syncPicker();
  if (remember) vscode.postMessage({ type: 'layout', layout });
}

function buildPicker(): void {
  picker.replaceChildren(
    ...COLUMNS.map((c) => {
      const box = h(
        'vscode-checkbox',
        { 'data-column': c.id, label: c.name, disabled: c.id === 'gpu' },
        c.label === c.name ? c.label : l10n.t('{0} ({1})', c.label, c.name),
      );
      box.addEventListener('change', () => {
        const checked = (box as HTMLElement & { checked: boolean }).checked;
        const visible = checked
          ? COLUMNS.filter((x) => x.id === c.id || layout.visible.includes(x.id)).map((x) => x.id)
          : layout.visible.filter((id) => id !== c.id);
        setLayout({ visible, widths: layout.widths }, true);
      });
      return box;
    }),
  );
  syncPicker();
}

function syncPicker(): void {
  for (const box of Array.from(picker.children)) {
    const id = (box as HTMLElement).dataset['column'];
    (box as HTMLElement & { checked: boolean }).checked = layout.visible.some((v) => v === id);
  }
}

function togglePicker(open: boolean): void {
  picker.hidden = !open;
  columnsButton.setAttribute('aria-expanded', String(open));
  if (open) (picker.firstElementChild as HTMLElement | null)?.focus();
}

function announce(): void {
  live.textContent = grouping ? groupingAnnouncement(sort, grouping) : sortAnnouncement(sort, order.length);
}

/** Runs a step and reports how long it took, layout included, to the extension and on the body (for the benchmark). */
function timed(name: TimingName, step: () => void): void {
  const start = performance.now();
  step();
  void document.body.offsetHeight;
  record(name, performance.now() - start, name === 'sort' ? order.length : rows.length);
}

/** Reports a measurement to the extension and on the body, where the benchmark reads it. */
function record(name: TimingName, ms: number, count: number): void {
  const data = document.body.dataset;
  data[`${name}Ms`] = ms.toFixed(2);
  data[`${name}Rows`] = String(count);
  data[`${name}Seq`] = String(Number(data[`${name}Seq`] ?? 0) + 1);
  vscode.postMessage({ type: 'timing', name, ms, rows: order.length });
}

function save(): void {
  vscode.setState({ sort, selected: selectedId, scrollTop: grid.scrollTop, draft: filterBar.draft, grouped, selectedCluster });
}
