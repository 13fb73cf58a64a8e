import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_IDS, SETTINGS, VIEWS } from '../../src/core/ids';

interface Manifest {
  activationEvents?: string[];
  contributes: {
    commands: Array<{ command: string; title: string; category?: string }>;
    views: Record<string, Array<{ id: string; when?: string }>>;
    viewsContainers: { activitybar: Array<{ id: string; icon: string }> };
    viewsWelcome: Array<{ view: string; when: string; contents: string }>;
    menus: Record<string, Array<{ command: string }>>;
    configuration: { properties: Record<string, { default?: unknown; scope?: string }> };
  };
}

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const declared = manifest.contributes.commands.map((c) => c.command);

describe('package.json against src/core/ids', () => {
  it('declares exactly the commands the extension registers', () => {
    assert.deepEqual([...declared].sort(), [...COMMAND_IDS].sort());
  });

  it('puts every command in the GPU Rental category', () => {
    for (const c of manifest.contributes.commands) assert.equal(c.category, 'GPU Rental', c.command);
  });

  it('keeps every action in the command palette (only the offers view\'s paging button is hidden there)', () => {
    const hidden = (manifest.contributes.menus.commandPalette ?? []) as Array<{ command: string; when?: string }>;
    assert.deepEqual(hidden.filter((h) => h.when === 'false').map((h) => h.command), ['gpuRental.loadMoreOffers']);
    for (const h of hidden) assert.ok(h.when === 'false' || h.when === undefined, `${h.command} is in the palette only when ${h.when}`);
  });

  it('never activates on *', () => {
    assert.ok(!(manifest.activationEvents ?? []).includes('*'));
  });

  it('links welcome content and menus only to declared commands', () => {
    const linked = manifest.contributes.viewsWelcome.flatMap((w) => [...w.contents.matchAll(/\(command:([\w.]+)/g)].map((m) => m[1]!));
    const menus = Object.values(manifest.contributes.menus).flatMap((items) => items.map((i) => i.command));
    for (const id of [...linked, ...menus].filter((c) => c.startsWith('gpuRental.'))) assert.ok(declared.includes(id), id);
  });

  it('has the container and its views, instances and offers first, with an icon that exists', () => {
    const container = manifest.contributes.viewsContainers.activitybar.find((c) => c.id === VIEWS.container);
    assert.ok(container);
    readFileSync(join(root, container.icon));
    assert.deepEqual(
      manifest.contributes.views[VIEWS.container]!.map((v) => v.id),
      [VIEWS.instances, VIEWS.offers, VIEWS.account],
    );
    // The rest of the platform stays out of the way until there is a key.
    assert.equal(manifest.contributes.views[VIEWS.container]!.find((v) => v.id === VIEWS.account)?.when, 'gpuRental.state == ready');
  });

  it('has welcome content for every session state in both views', () => {
    for (const view of [VIEWS.instances, VIEWS.offers]) {
      for (const state of ['noKey', 'checking', 'rejected', 'unreachable', 'badUrl', 'ready']) {
        assert.ok(
          manifest.contributes.viewsWelcome.some((w) => w.view === view && w.when === `gpuRental.state == ${state}`),
          `${view} ${state}`,
        );
      }
    }
    const noKey = manifest.contributes.viewsWelcome.find((w) => w.when === 'gpuRental.state == noKey');
    assert.match(noKey!.contents, /\[Set API Key\]\(command:gpuRental\.setApiKey\)/);
    const down = manifest.contributes.viewsWelcome.find((w) => w.when === 'gpuRental.state == unreachable');
    assert.match(down!.contents, /\[Retry\]\(command:gpuRental\.refresh\)/);
    assert.match(down!.contents, /\[Show Logs\]\(command:gpuRental\.showLogs\)/);
  });

  it('declares the settings with their defaults and scopes', () => {
    const props = manifest.contributes.configuration.properties;
    assert.deepEqual(Object.keys(props).sort(), Object.values(SETTINGS).sort());
    assert.equal(props[SETTINGS.apiUrl]!.default, 'https://console.vast.ai');
    assert.equal(props[SETTINGS.apiUrl]!.scope, 'application');
    assert.equal(props[SETTINGS.pollIntervalSeconds]!.default, 10);
  });
});
