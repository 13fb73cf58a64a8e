// package.json's user-facing strings are %key% placeholders whose English is in package.nls.json.
// VS Code replaces them when it reads the extension; a key it cannot find stays as "%key%", and that
// is what the palette, the views and the Settings editor would then show. This suite reads the
// manifest as the running VS Code loaded it. It needs no simulator.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'gpu-rental.gpu-rental';

interface LoadedManifest {
  displayName: string;
  contributes: {
    commands: Array<{ command: string; title: string; category?: string }>;
    views: Record<string, Array<{ id: string; name: string }>>;
    configuration: { title: string; properties: Record<string, { markdownDescription?: string }> };
    walkthroughs: Array<{ id: string; title: string; steps: Array<{ id: string; title: string }> }>;
  };
  capabilities: unknown;
}

/** Every string under `value` with its JSON path. */
function strings(value: unknown, path: string): Array<[string, string]> {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
  return [];
}

describe('manifest: VS Code resolves the %key% strings from package.nls.json', () => {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  const loaded = (): LoadedManifest => ext!.packageJSON as LoadedManifest;
  const english = (): Record<string, string> =>
    JSON.parse(readFileSync(join(ext!.extensionPath, 'package.nls.json'), 'utf8')) as Record<string, string>;

  it('leaves no %key% in the commands, views, settings, walkthrough or capabilities it loaded', () => {
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    const unresolved = [...strings(loaded().contributes, 'contributes'), ...strings(loaded().capabilities, 'capabilities')]
      .filter(([, text]) => /^%[\w.:-]+%$/.test(text))
      .map(([path, text]) => `${path}: ${text}`);
    assert.deepEqual(unresolved, []);
  });

  it('shows the palette titles, view names, settings and walkthrough in English', () => {
    const m = loaded();
    const nls = english();
    const rent = m.contributes.commands.find((c) => c.command === 'gpuRental.rentOffer');
    assert.equal(rent?.title, nls['command.gpuRental.rentOffer.title']);
    assert.equal(rent?.title, 'Rent…');
    for (const c of m.contributes.commands) assert.equal(c.category, 'GPU Rental', c.command);
    assert.deepEqual(
      m.contributes.views['gpuRental']!.map((v) => v.name),
      ['Instances', 'Offers', 'Account'],
    );
    assert.equal(m.contributes.configuration.title, 'GPU Rental');
    assert.match(
      m.contributes.configuration.properties['gpuRental.apiUrl']?.markdownDescription ?? '',
      /^Base URL of the GPU marketplace API/,
    );
    assert.equal(m.contributes.walkthroughs.find((w) => w.id === 'getStarted')?.title, 'Get started with GPU Rental');
    assert.equal(m.displayName, 'GPU Rental');
  });
});
