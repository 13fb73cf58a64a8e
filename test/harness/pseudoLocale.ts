// A display language that is not English, for a test that shows a user the translated extension.
// VS Code's pseudo locale `qps-ploc` stands in for a real language: the extension's own English
// files (l10n/bundle.l10n.json, package.nls.json) are turned into a "translation" that marks every
// message, written next to them in the INSTALLED extension, never into the repository.
//
// VS Code (desktop and code-server alike) keeps English unless a language pack for the display
// language is installed: without one the server resolves the locale to `en`, the extension host's
// `vscode.env.language` is `en`, and no extension's bundle is read. So the test also installs a
// language pack of its own for qps-ploc, with no translations of VS Code's own strings (they stay
// English): just enough for the workbench to run in qps-ploc, as a user's language pack makes it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXTENSION_ID, NODE_BIN, REPO } from '../../scripts/paths';
import { trackTempDir } from '../../scripts/processes';

/** VS Code's pseudo locale: its files are `bundle.l10n.qps-ploc.json` and `package.nls.qps-ploc.json`. */
export const PSEUDO_LOCALE = 'qps-ploc';

/**
 * How the pseudo translation marks a message: a user sees `⟦Offers⟧` where English shows `Offers`.
 * Leading and trailing white space stays outside the marks (a message ending in a paragraph
 * break keeps its break), as a translator keeps it.
 */
export function pseudo(message: string): string {
  const [, before = '', text = '', after = ''] = /^(\s*)([\s\S]*?)(\s*)$/.exec(message) ?? [];
  return text ? `${before}⟦${text}⟧${after}` : message;
}

/**
 * The pseudo translation of a bundle (message → translation, as bundle.l10n.json and
 * package.nls.json both are): every message marked, except those in `omit`, which the
 * translation lacks (so VS Code must fall back to English for them). Placeholders `{0}` and
 * `$(codicon)` stay as written inside the marks.
 */
export function pseudoBundle(english: Readonly<Record<string, string>>, omit: Iterable<string> = []): Record<string, string> {
  const left = new Set(omit);
  for (const key of left) if (!(key in english)) throw new Error(`cannot leave out "${key}": the English bundle has no such message`);
  return Object.fromEntries(
    Object.entries(english)
      .filter(([key]) => !left.has(key))
      .map(([key, message]) => [key, pseudo(message)]),
  );
}

/** What the translation leaves out, to show that such a message falls back to English. */
export interface PseudoOmissions {
  /** Keys of l10n/bundle.l10n.json (the English message itself). */
  messages?: string[];
  /** Keys of package.nls.json. */
  manifest?: string[];
}

/** The folder code-server installed the extension into (`<extensions dir>/gpu-rental.gpu-rental-<version>`). */
export function installedExtensionDir(extensionsDir: string): string {
  const found = readdirSync(extensionsDir).filter((name) => name.toLowerCase().startsWith(`${EXTENSION_ID}-`));
  if (found.length !== 1)
    throw new Error(`expected one installed ${EXTENSION_ID} in ${extensionsDir}, found: ${found.join(', ') || 'none'}`);
  return join(extensionsDir, found[0]!);
}

/**
 * Writes the qps-ploc translation of the installed extension's own English files into that
 * extension's folder; returns the translations written, for the test to look messages up.
 */
export function writePseudoTranslation(
  extensionDir: string,
  omit: PseudoOmissions = {},
): { messages: Record<string, string>; manifest: Record<string, string> } {
  const read = (path: string) => JSON.parse(readFileSync(join(extensionDir, path), 'utf8')) as Record<string, string>;
  const messages = pseudoBundle(read(join('l10n', 'bundle.l10n.json')), omit.messages);
  const manifest = pseudoBundle(read('package.nls.json'), omit.manifest);
  writeFileSync(join(extensionDir, 'l10n', `bundle.l10n.${PSEUDO_LOCALE}.json`), JSON.stringify(messages, null, 2));
  writeFileSync(join(extensionDir, `package.nls.${PSEUDO_LOCALE}.json`), JSON.stringify(manifest, null, 2));
  return { messages, manifest };
}

const PACK = { publisher: 'gpu-rental-tests', name: 'pseudo-language-pack', version: '1.0.0' };
const PACK_ID = `${PACK.publisher}.${PACK.name}`;
let languagePack: string | undefined;

/**
 * A .vsix of a language pack for qps-ploc that translates none of VS Code's strings: installing it
 * (and `registerPseudoLanguagePack`) is what lets VS Code run in that language at all. Made once
 * per process in a temp folder.
 */
export function pseudoLanguagePackVsix(): string {
  if (languagePack && existsSync(languagePack)) return languagePack;
  const dir = trackTempDir(mkdtempSync(join(tmpdir(), 'gpu-rental-langpack-')));
  mkdirSync(join(dir, 'translations'));
  const manifest = {
    ...PACK,
    displayName: 'Pseudo language pack (GPU Rental tests)',
    description: 'Runs VS Code in the qps-ploc pseudo locale, with VS Code strings in English.',
    license: 'MIT',
    engines: { vscode: '^1.96.0' },
    categories: ['Language Packs'],
    contributes: {
      localizations: [
        {
          languageId: PSEUDO_LOCALE,
          languageName: 'Pseudo Language',
          localizedLanguageName: 'Pseudo Language',
          translations: [{ id: 'vscode', path: './translations/main.i18n.json' }],
        },
      ],
    },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, 'README.md'), '# Pseudo language pack\n\nMade by the GPU Rental e2e tests.\n');
  writeFileSync(join(dir, 'LICENSE'), 'MIT\n');
  // No translated strings: VS Code takes its English message for each one a pack lacks.
  writeFileSync(join(dir, 'translations', 'main.i18n.json'), JSON.stringify({ version: '1.0.0', contents: {} }));
  const out = join(dir, 'pseudo-language-pack.vsix');
  const vsce = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(NODE_BIN, [vsce, 'package', '--allow-missing-repository', '--skip-license', '--out', out], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`packaging the pseudo language pack failed:\n${r.stdout}\n${r.stderr}`);
  languagePack = out;
  return out;
}

/**
 * Records the installed pseudo language pack in `<user data>/languagepacks.json`, as VS Code's
 * language pack cache does when a pack is installed from the running workbench. code-server's
 * `--install-extension` (a separate process) installs the files but does not record the pack, and
 * the server reads only this file to resolve a display language: without it qps-ploc becomes `en`.
 */
export function registerPseudoLanguagePack(userDataDir: string, extensionsDir: string): void {
  const folder = `${PACK_ID}-${PACK.version}`;
  if (!existsSync(join(extensionsDir, folder))) throw new Error(`the pseudo language pack is not installed in ${extensionsDir}`);
  const entry = {
    // The cache names its folder of generated messages after this hash of the packs' ids and versions.
    hash: createHash('md5').update(PACK_ID).update(PACK.version).digest('hex'),
    extensions: [{ extensionIdentifier: { id: PACK_ID }, version: PACK.version }],
    translations: { vscode: join(extensionsDir, folder, 'translations', 'main.i18n.json') },
    label: 'Pseudo Language',
  };
  writeFileSync(join(userDataDir, 'languagepacks.json'), JSON.stringify({ [PSEUDO_LOCALE]: entry }));
}
