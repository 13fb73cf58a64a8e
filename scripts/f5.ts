// F5 in VS Code (.vscode/launch.json, task "marketplace for F5"): the simulator the Extension
// Development Host talks to, so a developer runs the extension from source with no account.
//   1. writes the host's user settings (.vscode-test/f5/user-data/User/settings.json) so
//      gpuRental.apiUrl points at the simulator; other settings in that file are kept;
//   2. starts the simulator on port 8791 with the demo key (its state kept in .vscode-test/f5/)
//      and prints its listening line, which ends the task's "background" phase;
//   3. runs until the task is stopped.
// launch.json hands the host the demo key through GPU_RENTAL_API_KEY, so nothing needs typing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR } from './paths';
import { cleanupOnExit } from './processes';
import { DEMO_KEY } from '../test/support/keys';
import { spawnSimulator } from '../test/support/simulator';

const PORT = 8791;

/** Points the host's apiUrl at the simulator; a settings file it cannot read as plain JSON is left as it is. */
function writeUserSettings(file: string, apiUrl: string): void {
  let settings: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // Comments or trailing commas (VS Code allows both): rewriting would lose them.
      console.log(`${file} is not plain JSON, so it was left unchanged: set "gpuRental.apiUrl": "${apiUrl}" in it by hand.`);
      return;
    }
  }
  settings['gpuRental.apiUrl'] = apiUrl;
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

async function main(): Promise<void> {
  cleanupOnExit();
  const home = join(CACHE_DIR, 'f5');
  mkdirSync(home, { recursive: true });
  const sim = await spawnSimulator({ bootSeconds: 20, port: PORT, stateFile: join(home, 'marketplace-state.json') });
  writeUserSettings(join(home, 'user-data', 'User', 'settings.json'), sim.url);
  console.log(`Marketplace listening on ${sim.url} (demo key "${DEMO_KEY}"; F5 host settings in .vscode-test/f5/user-data)`);
  await new Promise(() => {});
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
