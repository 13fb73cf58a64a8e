// The floor of the activation bench: an empty extension that activates on the same event as GPU
// Rental (onStartupFinished) and that VS Code activates right before it, in the same extension
// host. VS Code starts the clock of every onStartupFinished extension at once and then loads them
// one after another, so each one's time includes the loading of those before it; GPU Rental's time
// minus the floor's, in the same window load, is what GPU Rental itself costs.
//
// The order, as VS Code 1.139 has it (extensionHostProcess.js): the host's registry sorts its
// extensions built-in first, then installed, then under development, and within each by the name
// of the folder the extension is installed in (`<publisher>.<name>-<version>`), compared as plain
// strings; onStartupFinished activates them in that order. "gpu-rental-bench.activation-floor-…"
// sorts right before "gpu-rental.gpu-rental-…" ('-' < '.'), with nothing installed between them.
// The bench checks the order in every load from the host's log, which names each activation as it
// starts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_BIN, REPO } from '../../scripts/paths';

export const FLOOR = { publisher: 'gpu-rental-bench', name: 'activation-floor', version: '0.0.1', displayName: 'Activation Floor' };
export const FLOOR_ID = `${FLOOR.publisher}.${FLOOR.name}`;
const VSCE = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');

/** The folder an installed extension lives in, whose name orders the activations of installed extensions. */
export function installFolder(manifest: { publisher: string; name: string; version: string }): string {
  return `${manifest.publisher}.${manifest.name}-${manifest.version}`.toLowerCase();
}

/** The floor's manifest: GPU Rental's engine and extension kind, so that it runs in the same extension host. */
export function floorManifest(gpuRental: { engines: { vscode: string }; extensionKind?: string[] }): Record<string, unknown> {
  return {
    ...FLOOR,
    description: 'An empty extension: the floor of the GPU Rental activation bench.',
    license: 'MIT',
    engines: gpuRental.engines,
    ...(gpuRental.extensionKind ? { extensionKind: gpuRental.extensionKind } : {}),
    main: './extension.js',
    activationEvents: ['onStartupFinished'],
  };
}

/** Writes the floor into `dir` and packs it with vsce; returns the .vsix path. */
export function packFloor(dir: string, gpuRental: { engines: { vscode: string }; extensionKind?: string[] }): string {
  const source = join(dir, 'floor');
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, 'package.json'), JSON.stringify(floorManifest(gpuRental), null, 2));
  writeFileSync(join(source, 'extension.js'), 'exports.activate = function activate() {};\n');
  const vsix = join(dir, `${FLOOR_ID}.vsix`);
  const r = spawnSync(NODE_BIN, [VSCE, 'package', '--allow-missing-repository', '--skip-license', '--out', vsix], {
    cwd: source,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`vsce could not pack the floor extension:\n${r.stdout}\n${r.stderr}`);
  return vsix;
}

export interface Activation {
  readonly id: string;
  readonly event: string;
}

/** The activations an extension host's log names, in the order they started ("ExtensionService#_doActivateExtension …"). */
export function activationOrder(log: string): Activation[] {
  return [...log.matchAll(/ExtensionService#_doActivateExtension (\S+), startup: (?:true|false), activationEvent: '([^']*)'/g)].map(
    (m) => ({ id: m[1]!.toLowerCase(), event: m[2]! }),
  );
}

/**
 * Why this load cannot be compared with its floor, or undefined when it can: GPU Rental and the
 * floor both activated on onStartupFinished, the floor right before GPU Rental among the
 * extensions that did.
 */
export function floorProblem(order: readonly Activation[], extensionId: string): string | undefined {
  const id = extensionId.toLowerCase();
  const mine = order.find((a) => a.id === id);
  const floor = order.find((a) => a.id === FLOOR_ID);
  if (!mine) return `${extensionId} did not activate`;
  if (!floor) return `${FLOOR_ID} did not activate`;
  if (mine.event !== 'onStartupFinished') return `${extensionId} activated on ${mine.event}, not onStartupFinished`;
  if (floor.event !== 'onStartupFinished') return `${FLOOR_ID} activated on ${floor.event}, not onStartupFinished`;
  const startup = order.filter((a) => a.event === 'onStartupFinished').map((a) => a.id);
  const before = startup[startup.indexOf(id) - 1];
  if (before !== FLOOR_ID) return `${before ?? 'nothing'} activated right before ${extensionId}, not ${FLOOR_ID}`;
  return undefined;
}

/** "Activation: 83ms" or "Startup Activation: 83ms", as a Running Extensions row shows it. */
export function rowMs(text: string): number | undefined {
  const m = /(\d+)\s*ms\s*$/.exec(text.trim());
  return m ? Number(m[1]) : undefined;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
