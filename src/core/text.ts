/**
 * Text that comes from outside the extension (a link's parameters, the service's own messages, an
 * instance's label, a remote host's error line) as a message may show it.
 *
 * Such text may carry characters a person cannot see but that change what they read: bidi
 * controls that show the rest of the sentence reversed (U+202E), zero-width characters that split
 * or join words unseen (U+200B), other invisible format characters and fillers, and control
 * characters (line breaks, escape sequences). Each of these is shown as an escape, `\u202E`,
 * rather than removed: a person then sees that the text was crafted, and two values that differ
 * only in hidden characters read differently. The text is also cut to a length a message can hold.
 *
 * Such text may also carry link syntax. VS Code turns `[label](https://…)`, `[label](command:…)`
 * and `[label](file:…)` into links in a notification, and markdown (a tooltip) does the same, so a
 * machine's error line `[Fix the driver](command:…)` would read as the extension's own advice and
 * run a command when clicked. Every `](` is shown as `]\(`: the backslash is drawn (a notification
 * does not read it as an escape; markdown reads it as one and draws the parenthesis), the text reads
 * as it was, with a visible sign that it was changed, and no link can start there. A link needs
 * `](` with nothing between, so none survives. Markdown's other links (`<https://…>`, a bare URL)
 * are markdown's concern: a tooltip that quotes outside text escapes its markdown as well
 * (markdownEscape in core/account/status.ts).
 */

/**
 * Control characters (C0, C1), format characters (bidi controls, zero-width ones, the BOM, tags),
 * line and paragraph separators, lone surrogates, and every other character Unicode says is
 * ignorable when drawn (fillers such as U+3164). The two emoji presentation selectors are kept: they
 * only say how the character before them is drawn, and everyday emoji carry them.
 */
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]$/u;
const KEPT = new Set(['\uFE0E', '\uFE0F']);

/** The longest value a message quotes unless told otherwise, in characters. */
export const VISIBLE_MAX = 80;

/** `\u202E` for a character of the basic plane, `\u{E0001}` above it. */
function escaped(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/**
 * `value` safe to put in a message: every hidden character (see HIDDEN) shown as its escape, every
 * `](` shown as `]\(` (no link syntax), and at most `maxChars` characters in all (code points; an
 * escape counts in full and is never cut in half), ending in `…` where it was cut. What comes out
 * holds no hidden character and no `](`, so applying it again with the same length changes nothing.
 */
export function visibleText(value: string, maxChars: number = VISIBLE_MAX): string {
  let out = '';
  let used = 0;
  // What fits with room left for the ellipsis: the answer once the text turns out too long.
  let fitted: string | undefined;
  let previous = '';
  for (const c of value) {
    const hidden = HIDDEN.test(c) && !KEPT.has(c);
    const text = hidden ? escaped(c) : previous === ']' && c === '(' ? '\\(' : c;
    previous = c;
    // An escape (and `\(`) is plain ASCII; any other piece is one code point.
    const size = text === c ? 1 : text.length;
    if (fitted === undefined && used + size > maxChars - 1) fitted = out;
    if (used + size > maxChars) return `${fitted}…`;
    out += text;
    used += size;
  }
  return out;
}
