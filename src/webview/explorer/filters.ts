/// <reference lib="dom" />
/**
 * The filter bar: one control per common filter, and the raw query text below them, all editing
 * the same query as the Offers view. A change is applied to the text (core's applyFilterBar) and
 * handed to `onQuery`; text that does not parse stays in the box with the problem shown beside it.
 */
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import {
  applyFilterBar,
  filterBarValues,
  FILTER_BAR_LABELS,
  queryProblem,
  type FilterBarField,
} from '../../core/offers/explorer/filterBar';
import { parseQuery } from '../../core/offers/search';
import { l10n } from '../../core/l10n';
import { h } from './dom';

type Control = VscodeTextfield | VscodeSingleSelect;

function select(field: FilterBarField, options: Array<[string, string]>): VscodeSingleSelect {
  const el = h('vscode-single-select', {
    'data-field': field,
    label: FILTER_BAR_LABELS[field],
    title: FILTER_BAR_LABELS[field],
  }) as VscodeSingleSelect;
  for (const [value, text] of options) el.append(h('vscode-option', { value }, text));
  return el;
}

function text(field: FilterBarField, placeholder: string, size: string): VscodeTextfield {
  return h('vscode-textfield', {
    'data-field': field,
    label: FILTER_BAR_LABELS[field],
    title: FILTER_BAR_LABELS[field],
    placeholder,
    class: `f-${size}`,
  }) as VscodeTextfield;
}

export class FilterBar {
  readonly root: HTMLElement;
  private readonly controls = new Map<FilterBarField, Control>();
  private readonly raw: VscodeTextfield;
  private readonly problem: HTMLElement;
  private query = '';

  constructor(private readonly onQuery: (query: string) => void) {
    const fields: Array<[FilterBarField, Control]> = [
      ['gpu', text('gpu', l10n.t('GPU model, e.g. RTX 4090'), 'wide')],
      ['count', text('count', l10n.t('GPUs ≥'), 'narrow')],
      ['vram', text('vram', l10n.t('VRAM GB ≥'), 'narrow')],
      ['price', text('price', l10n.t('$/h ≤'), 'narrow')],
      ['reliability', text('reliability', l10n.t('Reliab. ≥'), 'narrow')],
      [
        'verified',
        select('verified', [
          ['yes', l10n.t('Verified')],
          ['any', l10n.t('Verified or not')],
          ['no', l10n.t('Unverified')],
        ]),
      ],
      ['region', text('region', l10n.t('Countries: US,CA'), 'mid')],
      [
        'type',
        select('type', [
          ['on-demand', l10n.t('On-demand')],
          ['bid', l10n.t('Interruptible')],
          ['reserved', l10n.t('Reserved')],
        ]),
      ],
    ];
    for (const [field, control] of fields) {
      this.controls.set(field, control);
      control.addEventListener('change', () => this.applyControl(field, control.value));
    }
    this.raw = h('vscode-textfield', {
      class: 'raw-query',
      label: l10n.t('Query, in the marketplace CLI language'),
      placeholder: l10n.t('Query, e.g. gpu_name=RTX_4090 num_gpus>=2 dph<1.5 geolocation in [US,CA]'),
    }) as VscodeTextfield;
    this.raw.addEventListener('change', () => this.applyRaw(this.raw.value));
    this.raw.addEventListener('input', () => this.showProblem(queryProblem(this.raw.value)?.message));
    this.problem = h('div', { class: 'query-problem', role: 'alert', hidden: true });
    this.root = h(
      'div',
      { class: 'filter-bar', role: 'search', 'aria-label': l10n.t('Filters') },
      h('div', { class: 'filter-row' }, ...fields.map(([, c]) => c)),
      h('div', { class: 'filter-row' }, this.raw),
      this.problem,
    );
  }

  /** Shows a query (from the Offers view, or after the user's own change came back). */
  setQuery(query: string, draft?: string): void {
    this.query = query;
    if (draft === undefined) {
      this.raw.value = query;
      this.showProblem(undefined);
    }
    let values;
    try {
      values = filterBarValues(parseQuery(query));
    } catch {
      return;
    }
    for (const [field, control] of this.controls) if (control.value !== values[field]) control.value = values[field];
  }

  /** The raw text the user is editing, when it is not the query shown (kept across hide and restore). */
  get draft(): string | undefined {
    return this.raw.value === this.query ? undefined : this.raw.value;
  }

  set draft(text: string | undefined) {
    if (text === undefined) return;
    this.raw.value = text;
    this.showProblem(queryProblem(text)?.message);
  }

  /** A problem reported from outside (the service refused the search): shown under the query, which stays. */
  showProblem(message: string | undefined): void {
    this.problem.hidden = message === undefined;
    this.problem.textContent = message ?? '';
    this.raw.invalid = message !== undefined;
  }

  private applyControl(field: FilterBarField, value: string): void {
    try {
      const next = applyFilterBar(this.query, field, value);
      this.showProblem(undefined);
      this.raw.value = next;
      this.query = next;
      this.onQuery(next);
    } catch (error) {
      this.showProblem(error instanceof Error ? error.message : String(error));
    }
  }

  private applyRaw(text: string): void {
    const problem = queryProblem(text);
    this.showProblem(problem?.message);
    if (problem) return;
    this.query = text;
    this.setQuery(text);
    this.onQuery(text);
  }
}
