import { join } from 'node:path';
import { spawnTracked, waitForLine } from './processes';
import { REPO, NODE_BIN } from './paths';

export interface SimulatorProcess {
  url: string;
  key: string;
}

/** Starts the marketplace simulator CLI as a child process and waits for its listening line. */
export async function startSimulator(options: {
  key: string;
  bootSeconds: number;
  port?: number;
  state?: string;
  extraArgs?: string[];
}): Promise<SimulatorProcess> {
  const args = [join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(REPO, 'test', 'marketplace', 'cli.ts')];
  args.push('--port', String(options.port ?? 0), '--api-key', options.key, '--boot-seconds', String(options.bootSeconds));
  if (options.state) args.push('--state', options.state);
  args.push(...(options.extraArgs ?? []));
  const child = spawnTracked(NODE_BIN, args, { cwd: REPO });
  const match = await waitForLine(child, /Marketplace listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000, 'The marketplace simulator');
  child.stdout?.on('data', () => {});
  child.stderr?.on('data', () => {});
  return { url: match[1]!, key: options.key };
}
