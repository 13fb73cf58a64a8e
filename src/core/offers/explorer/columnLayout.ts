/**
 * The Offer Explorer's remembered column choice: which columns show, in which order, and the
 * widths the user changed; read defensively from stored state or a message.
 */
import { DEFAULT_VISIBLE_COLUMNS, columnById, isColumnId, type ColumnId } from './columnSpecs';

export const MIN_COLUMN_WIDTH = 32;
export const MAX_COLUMN_WIDTH = 600;

/** The explorer's remembered column choice: which show, in which order, and widths the user changed. */
export interface ColumnLayout {
  visible: ColumnId[];
  widths: Partial<Record<ColumnId, number>>;
}

export const DEFAULT_COLUMN_LAYOUT: ColumnLayout = Object.freeze({ visible: [...DEFAULT_VISIBLE_COLUMNS], widths: {} }) as ColumnLayout;

/**
 * Reads a column layout from anywhere (stored state, a message): unknown or repeated column ids
 * are dropped, widths are clamped; nothing readable gives the default. The GPU column always shows.
 */
export function readColumnLayout(raw: unknown): ColumnLayout {
  if (!raw || typeof raw !== 'object') return { visible: [...DEFAULT_VISIBLE_COLUMNS], widths: {} };
  const r = raw as { visible?: unknown; widths?: unknown };
  const visible = Array.isArray(r.visible) ? [...new Set(r.visible.filter(isColumnId))] : [...DEFAULT_VISIBLE_COLUMNS];
  if (!visible.includes('gpu')) visible.unshift('gpu');
  const widths: Partial<Record<ColumnId, number>> = {};
  if (r.widths && typeof r.widths === 'object') {
    for (const [id, w] of Object.entries(r.widths as Record<string, unknown>)) {
      if (isColumnId(id) && typeof w === 'number' && Number.isFinite(w)) widths[id] = clampWidth(w);
    }
  }
  return { visible, widths };
}

export function clampWidth(width: number): number {
  return Math.round(Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, width)));
}

export function columnWidth(layout: ColumnLayout, id: ColumnId): number {
  return layout.widths[id] ?? columnById(id).width;
}
