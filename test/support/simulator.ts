/**
 * Starting the marketplace simulator, with the defaults every test and script shares: the demo
 * key, catalogue seed 1 and quick boots.
 *
 * Tests and bench scripts start it in their own process (`startSimulator`) and reach its state
 * through `sim.control`. Tools that run a whole VS Code beside it (e2e, the integration runners,
 * `npm start`, F5) start the simulator's CLI (`spawnSimulator`): it then sits in its own process
 * group with the sshd and start-up scripts it runs, and the harness's cleanup stops all of them
 * together, on Ctrl-C or on a lost launcher as well.
 */
import { join } from 'node:path';
import { CODE_SERVER_MIRROR, REPO, NODE_BIN } from '../../scripts/paths';
import { spawnTracked, waitForLine } from '../../scripts/processes';
import { startMarketplace, type Marketplace, type MarketplaceOptions } from '../marketplace/server';
import { DEMO_KEY } from './keys';

export type { Marketplace, MarketplaceOptions };

/** Boot time of a new instance in tests: long enough to see it boot, short enough to wait for. */
const TEST_BOOT_SECONDS = 0.2;

/**
 * The download URL template of the simulator's code-server release mirror, for
 * gpuRental.browserWorkspace.downloadUrl: Open in Browser then installs from it offline, as it would
 * from GitHub (its checksum comes from the `.sha256` beside it).
 */
export function mirrorDownloadUrl(simUrl: string): string {
  return `${simUrl}/__mirror/code-server/releases/download/v\${version}/code-server-\${version}-linux-\${arch}.tar.gz`;
}

/**
 * Starts the simulator in this process on a free port; `options` override the shared defaults
 * (its code-server release mirror serves the code-server of scripts/codeServer.ts; its webhooks
 * run in test mode, so a test's receiver on localhost gets them).
 */
export function startSimulator(options: MarketplaceOptions = {}): Promise<Marketplace> {
  return startMarketplace({
    port: 0,
    apiKey: DEMO_KEY,
    bootSeconds: TEST_BOOT_SECONDS,
    seed: 1,
    codeServerMirror: CODE_SERVER_MIRROR,
    webhookTestMode: true,
    ...options,
  });
}

/** The simulator running as a child process: where it answers, and its full-access key. */
export interface SimulatorProcess {
  url: string;
  apiKey: string;
}

/**
 * Starts the simulator's CLI (with its real sshd and start-up scripts, and its webhooks in test
 * mode, `--webhook-test-mode`, for npm start, F5 and the e2e runs) as a tracked child process and
 * waits for its listening line. The harness's `cleanup` stops it.
 */
export async function spawnSimulator(
  options: Pick<MarketplaceOptions, 'apiKey' | 'bootSeconds' | 'port' | 'stateFile'> & { extraArgs?: string[] } = {},
): Promise<SimulatorProcess> {
  const apiKey = options.apiKey ?? DEMO_KEY;
  const args = [join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(REPO, 'test', 'marketplace', 'cli.ts')];
  args.push('--port', String(options.port ?? 0), '--api-key', apiKey, '--boot-seconds', String(options.bootSeconds ?? 3));
  if (options.stateFile) args.push('--state', options.stateFile);
  args.push('--webhook-test-mode', ...(options.extraArgs ?? []));
  const child = spawnTracked(NODE_BIN, args, { cwd: REPO });
  const match = await waitForLine(child, /Marketplace listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000, 'The marketplace simulator');
  // Drain the pipes, so a chatty simulator never blocks on a full one.
  child.stdout?.on('data', () => {});
  child.stderr?.on('data', () => {});
  return { url: match[1]!, apiKey };
}
