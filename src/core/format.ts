/** How money and time read everywhere in GPU Rental: the tree, the status bar, messages and tooltips. */

/**
 * 1.5 → "$1.50", 0.25 → "$0.250": amounts under a dollar keep a third digit, as hourly prices need.
 * Rounded as a decimal, half away from zero (a spreadsheet's ROUND): a sum of the service's
 * 3-decimal charges that lands on a half cent ($191.055) reads the same whatever order it was added
 * in, and the same as the exported file's column summed in a spreadsheet.
 */
export function formatDollars(amount: number): string {
  // Whole micro-dollars first: float noise from adding (191.05499999999998) is far below them.
  const micros = Math.abs(Math.round(amount * 1e6));
  const mills = Math.floor((micros + 500) / 1000);
  const digits = mills !== 0 && mills < 1000 ? 3 : 2;
  const units = digits === 3 ? mills : Math.floor((micros + 5000) / 10_000);
  const scale = digits === 3 ? 1000 : 100;
  const text = `${Math.floor(units / scale)}.${String(units % scale).padStart(digits, '0')}`;
  return `${amount < 0 && units !== 0 ? '-' : ''}$${text}`;
}

/** 75 → "1m 15s", 4000 → "1h 06m", 90000 → "1d 01h". */
export function formatDuration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d ${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}h`;
}

/** 80 → "1:20", 3725 → "1:02:05": the status bar's boot clock. */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** 512 → "512 B", 84_123_456 → "84.1 MB", 200_000_000 → "200 MB", 1.2e9 → "1.2 GB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '? B';
  let value = bytes;
  let unit = 0;
  while (value >= 999.5 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  return `${value < 99.95 ? value.toFixed(1) : Math.round(value).toString()} ${BYTE_UNITS[unit]}`;
}
