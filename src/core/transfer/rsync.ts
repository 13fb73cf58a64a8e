/**
 * The rsync path of a transfer: one rsync run over the instance's ssh alias, its `--info=progress2`
 * lines turned into progress events, and a watchdog that stops a run whose byte count stands still.
 */
import { TransferError } from './errors';
import { DEFAULT_STALL_MS, type TransferOptions } from './options';
import { collect, type ProcessRun } from './pipe';
import { parseRsyncProgress, RateMeter } from './progress';
import { l10n } from '../l10n';

/** rsync's own I/O timeout (the stall watchdog's length), then what the caller added. */
export function rsyncExtra(options: TransferOptions): string[] {
  return [`--timeout=${Math.max(1, Math.ceil((options.stallMs ?? DEFAULT_STALL_MS) / 1000))}`, ...(options.extraRsyncArgs ?? [])];
}

/**
 * Runs rsync, turning its `--info=progress2` lines into progress events. Once bytes have started
 * to move, a run whose count stands still for `stallMs` is stopped (`stalled`): rsync's own
 * `--timeout` does not end a link that hangs with both processes alive.
 */
export async function runRsync(argv: string[], options: TransferOptions): Promise<ProcessRun & { stalled: boolean }> {
  const meter = new RateMeter(options.now);
  const now = options.now ?? Date.now;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (options.signal?.aborted) stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let lastBytes = -1;
  let lastMove = 0;
  let stalled = false;
  const watchdog = setInterval(
    () => {
      if (lastBytes >= 0 && now() - lastMove >= stallMs && !stop.signal.aborted) {
        stalled = true;
        stop.abort();
      }
    },
    Math.min(1_000, Math.max(50, stallMs / 4)),
  );
  let pending = '';
  const run = await collect(options.tools?.rsync ?? 'rsync', argv, {
    signal: stop.signal,
    onStdout: (chunk) => {
      const lines = (pending + chunk).split(/[\r\n]/);
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const p = parseRsyncProgress(line);
        if (!p) continue;
        if (p.bytes !== lastBytes) {
          lastBytes = p.bytes;
          lastMove = now();
        }
        const total = p.percent > 0 ? Math.round((p.bytes * 100) / p.percent) : undefined;
        options.onProgress?.({
          bytes: p.bytes,
          percent: p.percent,
          ...(total !== undefined ? { total } : {}),
          bytesPerSecond: meter.sample(p.bytes),
        });
      }
    },
  }).finally(() => {
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', onAbort);
  });
  if (run.spawnError) throw new TransferError('other', l10n.t('rsync could not be started: {0}', run.spawnError.message));
  return { ...run, cancelled: run.cancelled && !stalled, stalled };
}
