import { readBanner } from '../../src/core/ssh/probe';
import { eventually } from './eventually';

/** Resolves once nothing answers with an SSH banner at host:port any more (a stopped sshd takes a moment to exit). */
export async function sshdGone(host: string, port: number): Promise<void> {
  await eventually(
    () =>
      readBanner(host, port, 300).then(
        () => false,
        () => true,
      ),
    `sshd on ${port} to stop`,
    5_000,
  );
}
