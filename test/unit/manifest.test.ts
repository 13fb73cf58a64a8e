import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_IDS, COMMANDS, CONTEXT, SETTINGS, VIEWS } from '../../src/core/ids';
import { NUMBER_RULES, MAX_HOURLY_SPEND } from '../../src/core/settings';

interface Manifest {
  activationEvents?: string[];
  capabilities?: {
    untrustedWorkspaces?: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] };
    virtualWorkspaces?: boolean | { supported: boolean | 'limited'; description?: string };
  };
  contributes: {
    commands: Array<{ command: string; title: string; category?: string; icon?: string }>;
    views: Record<string, Array<{ id: string; when?: string }>>;
    viewsContainers: { activitybar: Array<{ id: string; icon: string }> };
    viewsWelcome: Array<{ view: string; when: string; contents: string }>;
    menus: Record<string, Array<{ command: string; when?: string; group?: string }>>;
    configuration: {
      properties: Record<
        string,
        {
          type?: string | string[];
          default?: unknown;
          scope?: string;
          minimum?: number;
          maximum?: number;
          description?: string;
          markdownDescription?: string;
          enum?: unknown[];
          enumDescriptions?: string[];
          markdownEnumDescriptions?: string[];
          order?: number;
        }
      >;
    };
    walkthroughs?: Array<{
      id: string;
      title: string;
      description: string;
      steps: Array<{
        id: string;
        title: string;
        description: string;
        media: { image?: string | Record<'light' | 'dark' | 'hc' | 'hcLight', string>; svg?: string; markdown?: string; altText?: string };
        completionEvents?: string[];
      }>;
    }>;
  };
}

const root = join(__dirname, '..', '..');
/** package.json as written: its user-facing strings are `%key%` placeholders. */
const raw = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as unknown;
/** The English text of each placeholder. */
const english = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
/** A string VS Code replaces from package.nls.json: the whole value is `%key%`. */
const PLACEHOLDER = /^%([\w.:-]+)%$/;

/** A manifest value with every `%key%` replaced by its English text, as VS Code resolves it (an unknown key stays as is). */
function resolve(value: unknown): unknown {
  if (typeof value === 'string') {
    const key = PLACEHOLDER.exec(value)?.[1];
    return key !== undefined && Object.hasOwn(english, key) ? english[key] : value;
  }
  if (Array.isArray(value)) return value.map(resolve);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
  return value;
}

/** package.json as a user reads it: the tests below check the resolved English. */
const manifest = resolve(raw) as Manifest;
const declared = manifest.contributes.commands.map((c) => c.command);

/** Commands that act on a tree item they cannot ask for, hidden from the palette with `when: false`. */
const CONTEXT_ONLY: readonly string[] = [COMMANDS.loadMoreOffers, COMMANDS.startCluster, COMMANDS.stopCluster, COMMANDS.destroyCluster];
/** What the palette offers before a key is set: signing in, profiles, the walkthrough, logs, and local watches. */
const BEFORE_SIGN_IN: readonly string[] = [
  COMMANDS.setApiKey,
  COMMANDS.addProfile,
  COMMANDS.switchProfile,
  COMMANDS.removeProfile,
  COMMANDS.openWalkthrough,
  COMMANDS.showLogs,
  COMMANDS.stopWatchingSearch,
];

/** Each command's palette `when` clause (undefined: always shown). */
function paletteWhen(): Map<string, string | undefined> {
  return new Map((manifest.contributes.menus.commandPalette ?? []).map((m) => [m.command, m.when]));
}

/**
 * Whether a palette `when` clause can show the command in a session state. A clause is `false`, or
 * `gpuRental.state` tests joined with `&&` to other conditions (a remote window, a selection), which
 * may narrow it further but never widen it.
 */
function visibleWithState(when: string | undefined, state: string): boolean {
  if (when === undefined) return true;
  if (when.trim() === 'false') return false;
  assert.ok(!when.includes('||'), `palette clause "${when}": use && only, so the state test always applies`);
  return when.split('&&').every((part) => {
    const clause = /^\s*gpuRental\.state (==|!=) (\w+)\s*$/.exec(part);
    if (!clause) return true;
    return clause[1] === '==' ? state === clause[2] : state !== clause[2];
  });
}

/** Every file under a folder, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each command's handler's first parameter as written in src/ui ('' when it takes none), by command id. */
function handlerParameters(): Map<string, string> {
  const ids: Record<string, string> = COMMANDS;
  const found = new Map<string, string>();
  for (const file of filesUnder(join(root, 'src', 'ui'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/command\(\s*COMMANDS\.(\w+),\s*(?:async\s*)?\(([^)]*)\)\s*(?::[^=]*)?=>/g)) {
      const id = ids[m[1]!];
      if (id) found.set(id, (m[2] ?? '').split(',')[0]!.trim());
    }
  }
  return found;
}

describe('package.json against src/core/ids', () => {
  it('declares exactly the commands the extension registers', () => {
    assert.deepEqual([...declared].sort(), [...COMMAND_IDS].sort());
  });

  it('puts every command in the GPU Rental category', () => {
    for (const c of manifest.contributes.commands) assert.equal(c.category, 'GPU Rental', c.command);
  });

  it('gives every command shown on a view (title bar or inline) an icon', () => {
    const icon = new Map(manifest.contributes.commands.map((c) => [c.command, c.icon]));
    const menus = manifest.contributes.menus;
    const onView = [
      ...(menus['view/title'] ?? []),
      ...(menus['view/item/context'] ?? []).filter((m) => m.group?.startsWith('inline')),
      ...(menus['editor/title'] ?? []),
    ];
    for (const m of onView) assert.ok(icon.get(m.command), `${m.command} is on a view without an icon`);
  });

  it('hides from the palette only the commands that need a tree item, and every other one asks for its target', () => {
    const palette = paletteWhen();
    assert.deepEqual(
      declared.filter((c) => palette.get(c) === 'false'),
      CONTEXT_ONLY,
    );
    const params = handlerParameters();
    for (const id of declared.filter((c) => !CONTEXT_ONLY.includes(c))) {
      const first = params.get(id);
      assert.ok(first !== undefined, `${id}: its command(COMMANDS.x, (…) => …) registration is not found in src/ui`);
      // A handler that takes a target must take it as optional: run from the palette it gets none and asks.
      assert.ok(first === '' || /^\w+\?:|=/.test(first), `${id} is in the palette but its handler requires "${first}"`);
    }
  });

  it('shows a handful of commands in the palette before sign-in, and the rest once a key works', () => {
    const palette = paletteWhen();
    for (const id of palette.keys()) assert.ok(declared.includes(id), `${id} is in commandPalette but not declared`);
    const beforeSignIn = declared.filter((c) => visibleWithState(palette.get(c), 'noKey'));
    assert.deepEqual([...beforeSignIn].sort(), [...BEFORE_SIGN_IN].sort());
    for (const id of declared.filter((c) => !CONTEXT_ONLY.includes(c)))
      assert.ok(visibleWithState(palette.get(id), 'ready'), `${id} is not in the palette once signed in`);
    // A rejected key or an unreachable service: sign out and retry stay reachable.
    assert.ok(visibleWithState(palette.get('gpuRental.signOut'), 'rejected'));
    assert.ok(visibleWithState(palette.get('gpuRental.refresh'), 'unreachable'));
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

/** The Settings editor's groups, in their order: each setting's `order` falls in its group's range. */
const SETTING_GROUPS: ReadonlyArray<{ name: string; settings: readonly string[] }> = [
  { name: 'connection', settings: [SETTINGS.apiUrl, SETTINGS.pollIntervalSeconds] },
  { name: 'SSH', settings: [SETTINGS.sshIdentityFile, SETTINGS.sshConnectVia, SETTINGS.sshReadyTimeoutSeconds, SETTINGS.remoteFolder] },
  {
    name: 'money',
    settings: [
      SETTINGS.maxHourlySpend,
      SETTINGS.lowCreditHours,
      SETTINGS.lowCreditAmount,
      SETTINGS.rentFailoverAttempts,
      SETTINGS.watchIntervalMinutes,
    ],
  },
  {
    name: 'idle stop',
    settings: [SETTINGS.idleStopEnabled, SETTINGS.idleStopMinutes, SETTINGS.idleGpuThreshold, SETTINGS.idleCountdownSeconds],
  },
];

describe('package.json: the Settings editor', () => {
  const props = manifest.contributes.configuration.properties;

  it('describes every setting in Markdown, and every choice of an enum', () => {
    for (const [k, p] of Object.entries(props)) {
      assert.ok((p.markdownDescription ?? '').length > 20, `${k} has a markdownDescription`);
      if (p.enum) assert.equal((p.enumDescriptions ?? p.markdownEnumDescriptions)?.length, p.enum.length, `${k} describes each choice`);
    }
  });

  it('links only settings that exist', () => {
    for (const [k, p] of Object.entries(props))
      for (const m of (p.markdownDescription ?? '').matchAll(/`#([\w.]+)#`/g)) assert.ok(Object.hasOwn(props, m[1]!), `${k} links ${m[1]}`);
  });

  it('orders the settings in groups: connection, SSH, money, idle stop, then the rest', () => {
    const orders = Object.entries(props).map(([k, p]) => {
      assert.equal(typeof p.order, 'number', `${k} has an order`);
      return p.order!;
    });
    assert.equal(new Set(orders).size, orders.length, 'no two settings share an order');
    const grouped = SETTING_GROUPS.flatMap((g) => g.settings);
    const rest = Object.keys(props).filter((k) => !grouped.includes(k));
    let previous = -Infinity;
    for (const group of [...SETTING_GROUPS, { name: 'the rest', settings: rest }]) {
      const own = group.settings.map((k) => props[k]!.order!);
      assert.ok(Math.min(...own) > previous, `${group.name} comes after the group before it`);
      previous = Math.max(...own);
    }
  });
});

describe('package.json: the Get Started walkthrough', () => {
  const walkthroughs = manifest.contributes.walkthroughs ?? [];
  const walkthrough = walkthroughs.find((w) => w.id === 'getStarted');
  const contextKeys: string[] = Object.values(CONTEXT);

  it('walks from the key to a stopped machine', () => {
    assert.ok(walkthrough, 'getStarted is declared');
    assert.deepEqual(
      walkthrough.steps.map((s) => s.id),
      ['setApiKey', 'searchOffers', 'rent', 'connect', 'stop'],
    );
  });

  it('gives each step a text, a button to a declared command, and an image that is packaged', () => {
    const packaged = readFileSync(join(root, '.vscodeignore'), 'utf8');
    for (const step of walkthrough!.steps) {
      const buttons = [...step.description.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]!);
      assert.ok(buttons.length > 0, `${step.id} has a button`);
      for (const id of buttons) assert.ok(declared.includes(id), `${step.id} links ${id}`);
      const { image, svg, markdown } = step.media;
      const files = [svg, markdown, ...(typeof image === 'object' ? Object.values(image) : [image])].filter((f) => f !== undefined);
      assert.ok(files.length > 0, `${step.id} has an image`);
      if (typeof image === 'object')
        assert.deepEqual(Object.keys(image).sort(), ['dark', 'hc', 'hcLight', 'light'], `${step.id}: every theme kind`);
      for (const media of files) {
        assert.ok(existsSync(join(root, media)), `${step.id}'s media ${media} exists`);
        assert.ok(packaged.includes(`!${media.split('/').slice(0, -1).join('/')}/**`), `${media} is in the package`);
      }
      assert.ok(step.media.altText, `${step.id}'s media has an alt text`);
    }
  });

  it('marks each step done by the action it asks for, never by opening it', () => {
    for (const step of walkthrough!.steps) {
      const events = step.completionEvents ?? [];
      assert.ok(events.length > 0, `${step.id} has completion events (without, opening it completes it)`);
      for (const e of events) {
        const [kind, rest] = [e.slice(0, e.indexOf(':')), e.slice(e.indexOf(':') + 1)];
        if (kind === 'onCommand') assert.ok(declared.includes(rest), `${step.id}: ${rest} is declared`);
        else if (kind === 'onContext')
          assert.ok(contextKeys.includes(rest.split(' ')[0]!), `${step.id}: ${rest} reads a key the extension sets`);
        else assert.fail(`${step.id}: ${e} does not follow an action`);
      }
    }
  });
});

/** The properties of a contribution a user reads: their values must come from package.nls.json. */
const USER_FACING = new Set([
  'title',
  'shortTitle',
  'category',
  'name',
  'contextualTitle',
  'contents',
  'label',
  'description',
  'markdownDescription',
  'enumDescriptions',
  'markdownEnumDescriptions',
  'enumItemLabels',
  'deprecationMessage',
  'markdownDeprecationMessage',
  'errorMessage',
  'patternErrorMessage',
  'altText',
]);

/** Every string under `value`, with its JSON path and the property it is the value of (or an element of). */
function strings(value: unknown, path: string, property = ''): Array<{ path: string; property: string; text: string }> {
  if (typeof value === 'string') return [{ path, property, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`, property));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`, k));
  return [];
}

describe('package.json: localisable', () => {
  const manifestRaw = raw as { displayName: string; description: string; contributes: unknown; capabilities: unknown };
  const used = new Set(strings(raw, '').flatMap((s) => PLACEHOLDER.exec(s.text)?.[1] ?? []));

  it('takes every string a user reads in contributes and capabilities from package.nls.json', () => {
    const literal = [...strings(manifestRaw.contributes, 'contributes'), ...strings(manifestRaw.capabilities, 'capabilities')]
      .filter((s) => USER_FACING.has(s.property) && !PLACEHOLDER.test(s.text))
      // A language model tool's name and input schema are read by the model, not the person (as its modelDescription): English.
      .filter((s) => !/^contributes\.languageModelTools\[\d+\]\.(name|inputSchema)\b/.test(s.path))
      .map((s) => `${s.path}: "${s.text}"`);
    assert.deepEqual(literal, [], `these are literal English; give each a %key% in package.nls.json:\n${literal.join('\n')}`);
  });

  it('keeps displayName and description plain English: Open VSX shows them without resolving %key%', () => {
    for (const field of [manifestRaw.displayName, manifestRaw.description]) assert.doesNotMatch(field, /%[\w.:-]+%/);
  });

  it('has every %key% in package.nls.json, and no key there that package.json does not use', () => {
    const missing = [...used].filter((k) => !Object.hasOwn(english, k));
    assert.deepEqual(missing, [], 'keys package.json uses that package.nls.json lacks');
    const orphans = Object.keys(english).filter((k) => !used.has(k));
    assert.deepEqual(orphans, [], 'keys in package.nls.json that package.json does not use');
    for (const [k, v] of Object.entries(english)) assert.ok(typeof v === 'string' && v.trim() !== '', `${k} has English text`);
  });

  it('translates in package.nls.<locale>.json only keys the English one has', () => {
    const translations = readdirSync(root).filter((f) => /^package\.nls\.[\w-]+\.json$/.test(f));
    for (const file of translations) {
      const keys = Object.keys(JSON.parse(readFileSync(join(root, file), 'utf8')) as object);
      const unknown = keys.filter((k) => !Object.hasOwn(english, k));
      assert.deepEqual(unknown, [], `${file} has keys package.nls.json lacks`);
    }
  });

  it("names the folder of the code strings' translations, which ships in the package", () => {
    assert.equal((raw as { l10n?: string }).l10n, './l10n');
    const packaged = readFileSync(join(root, '.vscodeignore'), 'utf8').split('\n');
    for (const line of ['!package.nls.json', '!l10n/**']) assert.ok(packaged.includes(line), `.vscodeignore has ${line}`);
  });
});
