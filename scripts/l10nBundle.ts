/**
 * Writes `l10n/bundle.l10n.json`: every message of a `vscode.l10n.t` (src/ui) or `l10n.t`
 * (src/core/l10n.ts, used by core and the webview) call in src, as translators start from it.
 * A translation is `l10n/bundle.l10n.<locale>.json` with the same keys; VS Code loads it for its
 * display language (package.json's `l10n`), and the webview receives the same bundle.
 *
 * `npm run l10n` writes the file; test/unit/l10n.test.ts fails when it is out of date.
 *
 * @vscode/l10n-dev's `export` finds `l10n.t` only when `l10n` is imported from 'vscode' or
 * '@vscode/l10n', so it cannot see core's calls; this reads the same calls with the TypeScript
 * parser instead.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** Calls whose first argument is a message. */
const LOCALISERS = new Set(['l10n.t', 'vscode.l10n.t']);

/** A localising call whose message is not written out, so no bundle can hold it. */
export interface DynamicMessage {
  readonly file: string;
  readonly line: number;
  readonly call: string;
}

/** Every message of the localising calls in `sources` (name → text), and the calls whose message is computed. */
export function collectMessages(sources: ReadonlyMap<string, string>): { messages: Set<string>; dynamic: DynamicMessage[] } {
  const messages = new Set<string>();
  const dynamic: DynamicMessage[] = [];
  for (const [name, text] of sources) {
    const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && LOCALISERS.has(node.expression.getText(file))) {
        const first = node.arguments[0];
        if (first && ts.isStringLiteralLike(first)) messages.add(first.text);
        else
          dynamic.push({
            file: name,
            line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1,
            call: node.getText(file).slice(0, 120),
          });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { messages, dynamic };
}

/** The bundle's text for some messages: each maps to itself, sorted, so a change shows as a small diff. */
export function bundleText(messages: Iterable<string>): string {
  const sorted = [...messages].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `${JSON.stringify(Object.fromEntries(sorted.map((m) => [m, m])), null, 2)}\n`;
}

/** The TypeScript files under `dir`, as name → text. */
export function sourcesUnder(dir: string, root = dir): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) for (const [name, text] of sourcesUnder(path, root)) found.set(name, text);
    else if (entry.name.endsWith('.ts')) found.set(relative(root, path), readFileSync(path, 'utf8'));
  }
  return found;
}

/** src/ui/l10n.ts hands core's messages on to vscode.l10n.t: the one call whose message is a variable. */
const FORWARDER = join('ui', 'l10n.ts');

/** The sources of src whose localising calls hold messages (all but the forwarder). */
export function messageSources(srcDir: string): Map<string, string> {
  const sources = sourcesUnder(srcDir);
  sources.delete(FORWARDER);
  return sources;
}

if (require.main === module) {
  const root = join(__dirname, '..');
  const { messages, dynamic } = collectMessages(messageSources(join(root, 'src')));
  if (dynamic.length > 0) {
    for (const d of dynamic) console.error(`src/${d.file}:${d.line}: the message is not written out: ${d.call}`);
    process.exit(1);
  }
  writeFileSync(join(root, 'l10n', 'bundle.l10n.json'), bundleText(messages));
  console.log(`l10n/bundle.l10n.json: ${messages.size} messages`);
}
