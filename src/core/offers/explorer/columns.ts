/**
 * The Offer Explorer's columns: what each shows of an offer, how it reads, how it sorts. Shared by
 * the extension (which checks the remembered column choice) and the webview (which draws them).
 * Values are in the units people compare in: GB for memory, Mb/s for the network, MB/s for disk,
 * days for how long an offer stays.
 *
 * This module is their public face: the definitions are in columnSpecs.ts, how a cell reads in
 * cellText.ts, and the remembered layout (which show, in which order, how wide) in columnLayout.ts.
 */
export { durationText, gbFromMb, pricePerGpu, rentalTypeText } from './cellText';
export {
  clampWidth,
  columnWidth,
  DEFAULT_COLUMN_LAYOUT,
  MAX_COLUMN_WIDTH,
  MIN_COLUMN_WIDTH,
  readColumnLayout,
  type ColumnLayout,
} from './columnLayout';
export {
  COLUMN_IDS,
  COLUMNS,
  columnById,
  DEFAULT_VISIBLE_COLUMNS,
  isColumnId,
  rowPriceContext,
  type ColumnId,
  type ColumnKind,
  type ColumnSpec,
  type RowContext,
  type RowPriceContext,
} from './columnSpecs';
