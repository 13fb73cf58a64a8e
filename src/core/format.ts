/** How money and time read everywhere in GPU Rental: the tree, the status bar, messages and tooltips. */

/** 1.5 → "$1.50", 0.25 → "$0.250": amounts under a dollar keep a third digit, as hourly prices need. */
export function formatDollars(amount: number): string {
  const abs = Math.abs(amount);
  const digits = abs !== 0 && abs < 1 ? 3 : 2;
  return `${amount < 0 ? '-' : ''}$${abs.toFixed(digits)}`;
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
