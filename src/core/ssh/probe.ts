import { connect } from 'node:net';
import { l10n } from '../l10n';

/**
 * Resolves the server's identification line once `host:port` answers with an SSH banner
 * (`SSH-2.0-...`): "running" on the service is not yet "SSH works". Retries every `intervalMs`
 * until `timeoutMs`, then rejects with what it last saw.
 */
export async function waitForSshBanner(
  host: string,
  port: number,
  options: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  let last: string;
  for (;;) {
    if (options.signal?.aborted) throw new Error(l10n.t('The wait for SSH was cancelled.'));
    try {
      return await readBanner(host, port, Math.min(5_000, Math.max(250, deadline - Date.now())), options.signal);
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() >= deadline)
      throw new Error(
        l10n.t('SSH at {0}:{1} did not answer within {2} s ({3}).', host, port, Math.round((options.timeoutMs ?? 120_000) / 1000), last),
      );
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
  }
}

/** One attempt: connect, read the first line, expect `SSH-`. An abort closes the socket at once. */
export function readBanner(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error(l10n.t('The wait for SSH was cancelled.')));
    const socket = connect({ host, port });
    let data = '';
    let settled = false;
    const onAbort = () => done(new Error(l10n.t('The wait for SSH was cancelled.')));
    const done = (error?: Error, banner?: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve(banner!);
    };
    const timer = setTimeout(() => done(new Error(l10n.t('connected, but no banner in time'))), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
      const nl = data.indexOf('\n');
      if (nl === -1 && data.length < 256) return;
      const line = data.slice(0, nl === -1 ? undefined : nl).replace(/\r$/, '');
      if (line.startsWith('SSH-')) done(undefined, line);
      else done(new Error(l10n.t('answered, but not with an SSH banner ("{0}")', line.slice(0, 40))));
    });
    socket.on('error', (error) => done(error));
    socket.on('close', () => done(new Error(l10n.t('the connection closed before a banner'))));
  });
}
