import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import { countryCode } from '../../core/offers/present';
import { OfferQueryError } from '../../core/offers/query/parse';
import { OFFER_SORTS, describeSearch, isOfferSort, parseQuery, searchRequest, withFilter } from '../../core/offers/search';
import type { FieldFilter } from '../../core/api/offerQuery';
import type { Session } from '../../core/session/session';
import type { OffersView } from '../views/offersView';
import { showProgress } from '../pickers/progress';
import { command, type CommandDefinition } from '../registry';
import { formatDollars } from '../../core/format';
import { applyFilterBar, filterBarProblem, filterBarValues, type FilterBarNumberField } from '../../core/offers/explorer/filterBar';

/** What the offer commands use. */
export interface OfferDeps {
  readonly session: Pick<Session, 'client'>;
  readonly offersView: OffersView;
}

/** Search (filters), sort, clear and load more for the offers view. */
export function offerCommands(s: OfferDeps): CommandDefinition[] {
  return [
    command(COMMANDS.searchOffers, (query?: unknown) => searchOffers(s, query)),
    command(COMMANDS.clearOfferFilters, () => s.offersView.setSearch({ query: '' })),
    command(COMMANDS.sortOffers, (sort?: unknown) => sortOffers(s, sort)),
    command(COMMANDS.loadMoreOffers, () =>
      s.offersView.setSearch({ pages: s.offersView.search.pages + 1, query: s.offersView.search.query }),
    ),
  ];
}

/** Checks query text; returns the problem with its position, or undefined when it reads. */
export function queryProblem(text: string): string | undefined {
  try {
    parseQuery(text);
    return undefined;
  } catch (error) {
    return error instanceof OfferQueryError ? error.message : String(error);
  }
}

async function searchOffers(s: OfferDeps, query: unknown): Promise<void> {
  if (typeof query === 'string') {
    const problem = queryProblem(query);
    if (problem) {
      void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: the offer query does not read: {0}', problem));
      return;
    }
    await s.offersView.setSearch({ query });
    return;
  }
  let text = s.offersView.search.query;
  // A failure while editing (reading the GPU models, say) escapes to the command guard: the search stays as it was.
  for (;;) {
    const choice = await pickFilter(text);
    if (!choice) return; // Escape: keep the search as it was
    if (choice === 'apply') break;
    const next = await choice(s, text);
    if (next !== undefined) text = next;
  }
  await s.offersView.setSearch({ query: text });
}

type Editor = (s: OfferDeps, text: string) => Promise<string | undefined>;

async function pickFilter(text: string): Promise<Editor | 'apply' | undefined> {
  const q = parseQuery(text);
  const f = q.filters;
  const show = (field: string, op: keyof FieldFilter, fmt: (v: unknown) => string = String) =>
    f[field]?.[op] === undefined ? 'any' : fmt(f[field]![op]);
  const items: Array<vscode.QuickPickItem & { run?: Editor | 'apply' }> = [
    { label: vscode.l10n.t('$(check) Show offers'), description: describeSearch({ query: text, sort: 'value', pages: 1 }), run: 'apply' },
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: vscode.l10n.t('GPU model'), description: show('gpu_name', 'eq'), run: editGpuModel },
    {
      label: vscode.l10n.t('GPU count'),
      description: show('num_gpus', 'gte', (v) => vscode.l10n.t('at least {0}', String(v))),
      run: numberEditor('count', vscode.l10n.t('At least how many GPUs?')),
    },
    {
      label: vscode.l10n.t('VRAM per GPU'),
      description: show('gpu_ram', 'gte', (v) => vscode.l10n.t('at least {0} GB', Number(v) / 1000)),
      run: numberEditor('vram', vscode.l10n.t('At least how many GB of VRAM per GPU?')),
    },
    {
      label: vscode.l10n.t('Price'),
      description: show('dph_total', 'lte', (v) => vscode.l10n.t('at most {0}/h', formatDollars(Number(v)))),
      run: numberEditor('price', vscode.l10n.t('At most how many dollars per hour?')),
    },
    {
      label: vscode.l10n.t('Reliability'),
      description: show('reliability', 'gte', (v) => vscode.l10n.t('at least {0} %', (Number(v) * 100).toFixed(1))),
      run: numberEditor('reliability', vscode.l10n.t('At least what reliability, between 0 and 1 (for example 0.98)?')),
    },
    {
      label: vscode.l10n.t('Verified machines only'),
      description: f['verified']?.eq === true ? vscode.l10n.t('yes') : vscode.l10n.t('no'),
      run: async (_s, t) => withFilter(t, 'verified', parseQuery(t).filters['verified']?.eq === true ? undefined : { eq: true }),
    },
    {
      label: vscode.l10n.t('Region'),
      description: Array.isArray(f['geolocation']?.in) ? (f['geolocation'].in as string[]).join(', ') : show('geolocation', 'eq'),
      run: editRegion,
    },
    { label: vscode.l10n.t('Rental type'), description: q.type === 'bid' ? 'interruptible' : q.type, run: editType },
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: vscode.l10n.t('$(edit) Type a query…'), description: text || 'gpu_name=RTX_4090 num_gpus>=2 dph_total<1.5', run: editText },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('GPU Rental: Search Offers'),
    placeHolder: vscode.l10n.t('Change a filter, or show the offers'),
    ignoreFocusOut: true,
  });
  return picked?.run;
}

/** A number filter's editor: the same box as the Offer Explorer's filter bar (core/offers/explorer/filterBar.ts). */
function numberEditor(field: FilterBarNumberField, prompt: string): Editor {
  return async (_s, text) => {
    const value = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: Search Offers'),
      prompt: vscode.l10n.t('{0} Leave empty for any.', prompt),
      value: filterBarValues(parseQuery(text))[field],
      validateInput: (v) => filterBarProblem(field, v),
    });
    if (value === undefined) return undefined;
    return applyFilterBar(text, field, value);
  };
}

const editGpuModel: Editor = async (s, text) => {
  // The models on offer under the other filters, cheapest first, with how many offers each has.
  const without = withFilter(text, 'gpu_name', undefined);
  const offers = await showProgress(
    vscode.l10n.t('reading the GPU models on offer…'),
    () => s.session.client.offers.search({ ...searchRequest({ query: without, sort: 'price', pages: 1 }), limit: 1000 }),
    { cancellable: false },
  );
  const models = new Map<string, { count: number; min: number }>();
  for (const o of offers) {
    const m = models.get(o.gpu_name) ?? { count: 0, min: Infinity };
    m.count++;
    m.min = Math.min(m.min, o.dph_total);
    models.set(o.gpu_name, m);
  }
  const picked = await vscode.window.showQuickPick(
    [
      { label: vscode.l10n.t('Any model'), description: '', model: undefined as string | undefined },
      ...[...models]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([model, m]) => ({
          label: model,
          description: vscode.l10n.t('{0} offers, from {1}/h', m.count, formatDollars(m.min)),
          model,
        })),
    ],
    { title: vscode.l10n.t('GPU Rental: GPU model'), placeHolder: vscode.l10n.t('Pick a GPU model'), matchOnDescription: true },
  );
  if (!picked) return undefined;
  return withFilter(text, 'gpu_name', picked.model ? { eq: picked.model } : undefined);
};

const editRegion: Editor = async (s, text) => {
  const offers = await s.session.client.offers.search({
    ...searchRequest({ query: withFilter(text, 'geolocation', undefined), sort: 'price', pages: 1 }),
    limit: 1000,
  });
  const codes = [...new Set(offers.map((o) => countryCode(o.geolocation)).filter((c): c is string => !!c && c.length === 2))].sort();
  const current = parseQuery(text).filters['geolocation'];
  const chosen = new Set(Array.isArray(current?.in) ? (current.in as string[]) : current?.eq ? [String(current.eq)] : []);
  const picked = await vscode.window.showQuickPick(
    codes.map((code) => ({ label: code, picked: chosen.has(code) })),
    {
      title: vscode.l10n.t('GPU Rental: Regions'),
      placeHolder: vscode.l10n.t('Pick one or more countries (none for any)'),
      canPickMany: true,
    },
  );
  if (!picked) return undefined;
  return withFilter(text, 'geolocation', picked.length === 0 ? undefined : { in: picked.map((p) => p.label) });
};

const editType: Editor = async (_s, text) => {
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'On-demand', description: vscode.l10n.t('fixed price, runs until you stop it'), type: 'on-demand' },
      { label: vscode.l10n.t('Interruptible'), description: vscode.l10n.t('a bid: cheaper, but stopped when outbid'), type: 'bid' },
    ],
    { title: vscode.l10n.t('GPU Rental: Rental type') },
  );
  if (!picked) return undefined;
  const rest = text.replace(/(^|\s)type\s*=\s*\S+/g, '').trim();
  return picked.type === 'on-demand' ? rest : `${rest} type=${picked.type}`.trim();
};

const editText: Editor = async (_s, text) => {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('GPU Rental: Offer query'),
    prompt: vscode.l10n.t(
      'Filters in the marketplace CLI language, e.g. gpu_name=RTX_4090 num_gpus>=2 dph_total<1.5 reliability>0.98 geolocation in [US,CA]',
    ),
    value: text,
    ignoreFocusOut: true,
    validateInput: (v) => queryProblem(v),
  });
  return value === undefined ? undefined : value.trim();
};

async function sortOffers(s: OfferDeps, sort: unknown): Promise<void> {
  if (isOfferSort(sort)) {
    await s.offersView.setSearch({ sort, query: s.offersView.search.query });
    return;
  }
  const current = s.offersView.search.sort;
  const picked = await vscode.window.showQuickPick(
    Object.entries(OFFER_SORTS).map(([key, v]) => ({ label: v.label, description: key === current ? 'current' : '', key })),
    { title: vscode.l10n.t('GPU Rental: Sort Offers') },
  );
  if (picked && isOfferSort(picked.key)) await s.offersView.setSearch({ sort: picked.key, query: s.offersView.search.query });
}
