// npm start: try the extension now, on this machine, with no account and no internet.
//   1. builds and packages the extension (dist/gpu-rental.vsix);
//   2. starts the marketplace simulator with the demo key (its state kept in .vscode-test/start/);
//   3. starts code-server (VS Code 1.139) with the extension installed, pointed at the simulator,
//      and the demo key handed over through GPU_RENTAL_API_KEY, so nothing needs typing;
//   4. prints the URL to open, of an empty workspace folder outside this checkout (in the system's
//      temporary folder), so VS Code finds no git repository around it. Ctrl-C stops everything.
// Options: --port N (code-server, default 8080), --boot-seconds N (default 20), --fresh (forget saved state).
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startCodeServer } from './codeServer';
import { packageExtension } from './package';
import { CACHE_DIR } from './paths';
import { cleanup, cleanupOnExit, freePort, portIsFree } from './processes';
import { DEMO_KEY } from '../test/support/keys';
import { mirrorDownloadUrl, spawnSimulator } from '../test/support/simulator';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function pickPort(preferred: number): Promise<number> {
  return (await portIsFree(preferred)) ? preferred : freePort();
}

async function main(): Promise<void> {
  cleanupOnExit();
  const home = join(CACHE_DIR, 'start');
  // Outside the checkout: a folder inside it made VS Code ask about "a git repository in the parent
  // folders" at every start. One per user, and the same from one start to the next.
  const workspace = join(tmpdir(), `gpu-rental-start-${userInfo().username}`, 'workspace');
  if (process.argv.includes('--fresh')) for (const dir of [home, workspace]) rmSync(dir, { recursive: true, force: true });
  mkdirSync(workspace, { recursive: true });

  console.log('Building and packaging the extension…');
  const vsix = packageExtension({ quiet: true });
  console.log(`  ${vsix.path} (${(vsix.bytes / 1024).toFixed(1)} KiB)`);

  const sim = await spawnSimulator({
    bootSeconds: Number(option('boot-seconds') ?? 20),
    // A stable port keeps the API URL, and so the stored key, the same from one start to the next.
    port: await pickPort(8790),
    stateFile: join(home, 'marketplace-state.json'),
  });
  console.log(`Marketplace simulator: ${sim.url} (demo key "${DEMO_KEY}", state in .vscode-test/start/)`);

  const server = await startCodeServer({
    userDataDir: join(home, 'user-data'),
    extensionsDir: join(home, 'extensions'),
    port: await pickPort(Number(option('port') ?? 8080)),
    install: [vsix.path],
    settings: {
      'gpuRental.apiUrl': sim.url,
      // Open in Browser installs code-server on an instance from the simulator's release mirror.
      'gpuRental.browserWorkspace.downloadUrl': mirrorDownloadUrl(sim.url),
      'workbench.activityBar.location': 'default',
    },
    env: { GPU_RENTAL_API_KEY: DEMO_KEY },
    // Connect writes SSH keys and config: into .vscode-test/start/home, not the developer's ~/.ssh.
    home: join(home, 'home'),
  });
  console.log(
    `\nGPU Rental is ready. Open this in a browser:\n\n  ${server.url(workspace)}\n\nThe GPU Rental icon is in the activity bar. Press Ctrl-C to stop everything.`,
  );
  await new Promise(() => {});
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  await cleanup();
  process.exit(1);
});
