// The static checks of text the fast tier may run (test/support/noSpawn.ts lets exactly these
// through): shellcheck and python3's compiler read the files they are given and start nothing else.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

/** `shellcheck` over `paths` in one run, findings as JSON (json1). */
export function shellcheck(paths: readonly string[], severity = 'warning'): SpawnSyncReturns<string> {
  return spawnSync('shellcheck', [`--severity=${severity}`, '--format=json1', ...paths], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** `python3 -m py_compile` over `paths` in one run. */
export function pyCompile(paths: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync('python3', ['-m', 'py_compile', ...paths], { encoding: 'utf8' });
}
