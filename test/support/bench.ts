import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshdAvailable } from '../marketplace/sshd';
import { startSimulator, type Marketplace, type MarketplaceOptions } from './simulator';

/**
 * Runs the bench script `name` that needs simulator instances with a real sshd: says it is skipped
 * without root and an OpenSSH sshd; else runs `body` with a simulator (ssh, `options`) and a fresh
 * temporary folder, removes both after, and makes the process fail when `body` throws.
 */
export function sshBench(name: string, options: MarketplaceOptions, body: (sim: Marketplace, home: string) => Promise<void>): void {
  const main = async () => {
    if (!sshdAvailable() || process.getuid?.() !== 0) {
      console.log(`${name}: skipped (needs root and an OpenSSH sshd)`);
      return;
    }
    const home = mkdtempSync(join(tmpdir(), `gpu-rental-${name}-bench-`));
    const sim = await startSimulator({ ssh: true, bootSeconds: 0.2, ...options });
    try {
      await body(sim, home);
    } finally {
      await sim.stop();
      rmSync(home, { recursive: true, force: true });
    }
  };
  void main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
