/**
 * Localisation for code that cannot import `vscode` (src/core, the webview). Every user-facing
 * string goes through `l10n.t`, with the same message format as `vscode.l10n.t`: `{0}`, `{1}`…
 * stand for the arguments. `npm run l10n` collects these calls, with the UI's `vscode.l10n.t`
 * calls, into `l10n/bundle.l10n.json`, the file translators start from.
 *
 * Until a translator is set the English message is formatted as written: plain mocha tests, the
 * simulator and the CLI harnesses see English. The extension sets `vscode.l10n.t` first thing on
 * load (src/ui/l10n.ts), so messages built anywhere follow VS Code's display language; the webview
 * sets a lookup into the bundle the extension hands it.
 */

/** What a message's placeholders may stand for (as `vscode.l10n.t` takes). */
export type L10nArg = string | number | boolean;

export type Translate = (message: string, args: readonly L10nArg[]) => string;

let translate: Translate = format;

export const l10n = {
  /** The message in the display language, its `{n}` replaced by the arguments. */
  t(message: string, ...args: L10nArg[]): string {
    return translate(message, args);
  },
};

/** Routes every later `l10n.t` through `fn` (the extension: `vscode.l10n.t`). */
export function useTranslator(fn: Translate): void {
  translate = fn;
}

/** Replaces `{n}` by the n-th argument; any other brace stays as written (as `vscode.l10n.t` does). */
export function format(message: string, args: readonly L10nArg[]): string {
  return message.replace(/\{(\d+)\}/g, (whole, n: string) => (Number(n) < args.length ? String(args[Number(n)]) : whole));
}

/** A translation bundle as `vscode.l10n.bundle` holds it: message → translation. */
export type L10nBundle = Record<string, string | { message: string }>;

/** A translator over a bundle (`vscode.l10n.bundle`, as the webview receives it); a message it lacks stays English. */
export function bundleTranslator(bundle: Readonly<L10nBundle> | undefined): Translate {
  return (message, args) => {
    const entry = bundle?.[message];
    const text = typeof entry === 'string' ? entry : (entry?.message ?? message);
    return format(text, args);
  };
}

/**
 * Whole sentences, each its own message, joined by a space; an absent one (undefined, '' or false)
 * is left out. A message never begins or ends with a space to be glued to another.
 */
export function sentences(...parts: ReadonlyArray<string | undefined | false>): string {
  return parts.filter((p): p is string => !!p).join(' ');
}
