import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_IDS, SETTINGS, VIEWS } from '../../src/core/ids';
import { NUMBER_RULES, MAX_HOURLY_SPEND } from '../../src/core/settings';

interface Manifest {
  activationEvents?: string[];
  capabilities?: {
    untrustedWorkspaces?: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] };
    virtualWorkspaces?: boolean | { supported: boolean | 'limited'; description?: string };
  };
  contributes: {
    commands: Array<{ command: string; title: string; category?: string }>;
    views: Record<string, Array<{ id: string; when?: string }>>;
    viewsContainers: { activitybar: Array<{ id: string; icon: string }> };
    viewsWelcome: Array<{ view: string; when: string; contents: string }>;
    menus: Record<string, Array<{ command: string }>>;
    configuration: {
      properties: Record<string, { type?: string | string[]; default?: unknown; scope?: string; minimum?: number; maximum?: number }>;
    };
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

  it("keeps every action in the command palette (only the offers view's paging button is hidden there)", () => {
    const hidden = (manifest.contributes.menus.commandPalette ?? []) as Array<{ command: string; when?: string }>;
    assert.deepEqual(
      hidden.filter((h) => h.when === 'false').map((h) => h.command),
      ['gpuRental.loadMoreOffers'],
    );
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

/**
 * Settings a workspace may set: nothing about money, identity or where the extension connects.
 * Every other gpuRental setting must be one a cloned repository's .vscode/settings.json cannot set.
 */
const WINDOW_SETTINGS: readonly string[] = [
  SETTINGS.pollIntervalSeconds,
  SETTINGS.remoteFolder,
  SETTINGS.sshReadyTimeoutSeconds,
  SETTINGS.syncExclude,
];
/** Of those, the ones that stay harmless from an untrusted workspace too. */
const HARMLESS_IN_WORKSPACE: readonly string[] = [SETTINGS.pollIntervalSeconds, SETTINGS.sshReadyTimeoutSeconds];

describe('package.json: settings a workspace cannot weaken', () => {
  const props = manifest.contributes.configuration.properties;

  it('scopes every money, idle-stop, identity and service setting to the application', () => {
    const safeguards = Object.keys(props).filter((k) => !WINDOW_SETTINGS.includes(k));
    for (const k of [
      SETTINGS.maxHourlySpend,
      SETTINGS.lowCreditHours,
      SETTINGS.lowCreditAmount,
      SETTINGS.idleStopEnabled,
      SETTINGS.idleStopMinutes,
      SETTINGS.idleGpuThreshold,
      SETTINGS.idleCountdownSeconds,
      SETTINGS.apiUrl,
      SETTINGS.sshIdentityFile,
      SETTINGS.sshConnectVia,
    ]) {
      assert.ok(safeguards.includes(k), k);
    }
    for (const k of safeguards)
      assert.ok(
        props[k]!.scope === 'application' || props[k]!.scope === 'machine',
        `${k} is ${props[k]!.scope ?? 'window'}-scoped: a workspace could set it`,
      );
  });

  it('uses no machine scope: a machine value in user settings is dropped when the extension runs remotely (code-server)', () => {
    for (const [k, p] of Object.entries(props)) assert.notEqual(p.scope, 'machine', k);
  });

  it('supports Restricted Mode, ignoring there every workspace value that could be abused', () => {
    const trust = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(trust?.supported, 'limited');
    assert.ok(trust?.description, 'says what is limited');
    const restricted = trust?.restrictedConfigurations ?? [];
    for (const k of restricted) assert.ok(Object.hasOwn(props, k), `${k} is a declared setting`);
    for (const k of Object.keys(props).filter((k) => !HARMLESS_IN_WORKSPACE.includes(k)))
      assert.ok(restricted.includes(k), `${k} is restricted`);
  });

  it('supports virtual workspaces: it reads no file of the workspace', () => {
    assert.equal(manifest.capabilities?.virtualWorkspaces, true);
  });

  it('bounds every numeric setting as the reader clamps it', () => {
    const rules: Record<string, { min: number; max: number }> = NUMBER_RULES;
    for (const [k, p] of Object.entries(props)) {
      const types = [p.type].flat();
      if (!types.includes('number') && !types.includes('integer')) continue;
      assert.equal(typeof p.minimum, 'number', `${k} minimum`);
      assert.equal(typeof p.maximum, 'number', `${k} maximum`);
      if (k === SETTINGS.maxHourlySpend) {
        assert.deepEqual([p.minimum, p.maximum], [0, MAX_HOURLY_SPEND]);
        continue;
      }
      const rule = rules[k];
      assert.ok(rule, `${k} has a clamping rule in src/core/settings.ts`);
      assert.equal(p.maximum, rule.max, `${k} maximum`);
      // Idle minutes: the schema asks for whole minutes from 1, the reader also takes fractions (tests).
      if (k !== SETTINGS.idleStopMinutes) assert.equal(p.minimum, rule.min, `${k} minimum`);
      assert.ok(typeof p.default === 'number' && p.default >= p.minimum! && p.default <= p.maximum!, `${k} default within bounds`);
    }
  });
});

describe('package.json: activation', () => {
  it('activates after start-up, so a Remote-SSH window on an instance writes its heartbeat without a click', () => {
    assert.ok((manifest.activationEvents ?? []).includes('onStartupFinished'));
  });
});
