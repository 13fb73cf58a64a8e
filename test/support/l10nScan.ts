/**
 * Finds user-facing strings that do not go through localisation (`vscode.l10n.t` in src/ui, the
 * `l10n.t` of src/core/l10n.ts elsewhere). Used by test/unit/l10n.test.ts.
 *
 * A string counts as user-facing when it reads as prose (two words of letters, or a capitalised
 * word beside a value: `Destroy {}?`), or when a lone capitalised word is shown (a button passed to
 * a call or a constructor, a `label`-like property, a tooltip row's label), or a word around a value
 * sits in such a property. Strings that are code even though they hold words are left alone
 * (`isCode`: shell, Python, SSH config lines, argv options, offer queries, markup, a CSP, ids),
 * and so is what is compared with text from elsewhere (`===`, `case`, `includes`…), regular
 * expressions, property names, CSS classes, a string declared as a literal type anywhere in src
 * (an identifier with a label function beside it), and what goes only to the log (the "GPU Rental"
 * output channel stays English, as VS Code's own logs do, so that a log reads the same in any
 * language when a user shares it).
 */
import ts from 'typescript';

/** One unlocalised string: where it is and what it says. */
export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Calls that localise their first argument. */
const LOCALISERS = new Set(['l10n.t', 'vscode.l10n.t']);

/** Methods whose string arguments are matched against other text, not shown. */
const MATCHERS = new Set(['includes', 'startsWith', 'endsWith', 'indexOf', 'lastIndexOf', 'test', 'match', 'matchAll', 'split', 'search']);

/** Log methods; the receiver must name a logger or the output channel. */
const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'appendLine']);

/**
 * Two words of letters (a sentence, a label, a fragment of either), or one capitalised word beside
 * a value (`Destroy {}?`). `{}` stands where a template interpolates.
 */
export function isProse(shown: string): boolean {
  const text = withoutCodicons(shown);
  if (isCode(text)) return false;
  const words = text.replace(/\{\}/g, ' ');
  return (
    /[A-Za-z]{2,}[^\n]*?\s[^\n]*?[A-Za-z]{2,}/.test(words) ||
    (text.includes('{}') && !text.includes('/') && /\b[A-Z][a-z]{2,}\b/.test(text))
  );
}

/** One capitalised word, as a button or a title says it ("Destroy", "Retry", "$(check) Done", "Show…"). */
export function isWord(text: string): boolean {
  return /^[A-Z][a-z]{2,}[.…?]*$/.test(withoutCodicons(text));
}

/**
 * The text without its codicons: `$(name)` or `$(name~spin)` at the start or after a space or `[`,
 * followed by a space or the end, is an icon a label shows (`$(rocket) Rent for {}/h`), not a shell
 * command substitution (`$(date)`, `$( cat x )`, `"$(id -u)"`).
 */
export function withoutCodicons(text: string): string {
  return text.replace(/(^|[\s[])\$\([a-z][a-z0-9-]*(?:~[a-z]+)?\)(?=\s|$)/g, '$1').trim();
}

/** Text that is code although it holds words (scripts, config lines, identifier lists). */
export function isCode(text: string): boolean {
  const t = text.trim();
  if (/^#[\s!>]/.test(t)) return true; // shell or SSH config comment lines, markdown headings of generated scripts
  if (/^(Bearer|Basic) \{\}$/.test(t)) return true; // HTTP authorization
  // SSH config lines: a directive and one value.
  const ssh =
    /^(Host|HostName|Port|User|Include|IdentityFile|IdentitiesOnly|ProxyCommand|ProxyJump|StrictHostKeyChecking|UserKnownHostsFile|LocalForward|ServerAliveInterval) /;
  if (ssh.test(t) && /^\S+ (\{\}|yes|no|accept-new|\d+|\S*[/~.]\S*)$/.test(t)) return true;
  if (/\$\{(?![\d}])|\$[A-Z_]{2,}\b|\$\(\s*[a-z]|;;|&&|\|\||\s\|\s|2>&1|>\s?\/dev\/null|\bexec\b|\bset -[a-z]/.test(t)) return true;
  if (/\$[A-Za-z$]\b|>>|<<|>"|^(echo|printf|cat|date|if|then|else|fi|while|do|done|except|tmux|export|mkdir|rm|kill|cd)\b/.test(t))
    return true;
  if (/^try:|^[A-Za-z]\w*=\S/.test(t)) return true; // Python, a shell assignment
  if (/^--?[a-z]/.test(t)) return true; // a command-line option ("--filter=:- .gitignore")
  if (/^[a-z_]+(>=|<=|!=|=|<|>)\S+(\s+[a-z_]+(>=|<=|!=|=|<|>)\S+)*$/.test(t)) return true; // an offer query ("gpu_ram>=24 verified=true")
  if (/^[a-z0-9_./:{}-]+(\s+[a-z0-9_./:={}-]+)+$/.test(t) && /[_./:=-]/.test(t) && !/\s[a-z]{2,}\s/.test(` ${t} `.replace(/\{\}/g, '')))
    return true; // "jupyter_proxy ssh_proxy", "ssh -o x"
  if (!/\s/.test(t)) return true; // one token: an id, a path, a file name ("volume-{}gb")
  if (/^(\{\})?<[!/]?[a-zA-Z]+[\s>]/.test(t)) return true; // SVG or HTML markup
  if (/^[a-z]+-src /.test(t)) return true; // a content security policy
  if (/^(GET|POST|PUT|DELETE|PATCH|HEAD) \//.test(t)) return true;
  return false;
}

/** Whether `node` sits where a string is code or only logged (see the module comment). */
function exempt(node: ts.Node): boolean {
  const parent = node.parent;
  if (
    ts.isImportDeclaration(parent) ||
    ts.isExportDeclaration(parent) ||
    ts.isLiteralTypeNode(parent) ||
    ts.isExternalModuleReference(parent) ||
    ts.isCaseClause(parent)
  )
    return true;
  if (
    (ts.isPropertyAssignment(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isEnumMember(parent)) &&
    parent.name === node
  )
    return true;
  if (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) return true;
  // CSS class lists: `class:` in the webview's element helper, `className =`.
  if (ts.isPropertyAssignment(parent) && parent.initializer === node && /^['"]?(class|className)['"]?$/.test(parent.name.getText()))
    return true;
  if (ts.isBinaryExpression(parent) && parent.right === node && /\.className$/.test(parent.left.getText())) return true;
  if (
    ts.isBinaryExpression(parent) &&
    [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(parent.operatorToken.kind)
  )
    return true;
  for (let at: ts.Node = node; at.parent; at = at.parent) {
    const up = at.parent;
    if (ts.isTaggedTemplateExpression(up)) return true;
    if (ts.isNewExpression(up) && up.expression.getText() === 'RegExp') return true;
    if (ts.isCallExpression(up)) {
      const callee = up.expression;
      if (ts.isPropertyAccessExpression(callee)) {
        const method = callee.name.text;
        if (MATCHERS.has(method) && up.arguments.includes(at as ts.Expression)) return true;
        if (LOG_METHODS.has(method) && /(logger|channel|log)$/i.test(callee.expression.getText())) return true;
      }
    }
  }
  return false;
}

/** Property names whose value a user reads. */
const SHOWN_PROPERTIES = new Set([
  'label',
  'description',
  'detail',
  'tooltip',
  'title',
  'placeHolder',
  'placeholder',
  'prompt',
  'text',
  'message',
  'ariaLabel',
  'button',
]);

/** Where a lone word is shown: an argument of a call (a button), a label-like property, or an item of a list of buttons. */
function shownAlone(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isCallExpression(parent) && parent.arguments.includes(node as ts.Expression)) return !LOCALISERS.has(parent.expression.getText());
  if (ts.isNewExpression(parent) && parent.arguments?.includes(node as ts.Expression)) return true;
  if (ts.isPropertyAssignment(parent) && parent.initializer === node) return SHOWN_PROPERTIES.has(parent.name.getText());
  if (!ts.isArrayLiteralExpression(parent)) return false;
  // A list of buttons passed to a call, or the label of a `[label, value]` row of a tooltip's table.
  if (ts.isCallExpression(parent.parent) && parent.parent.arguments.includes(parent)) return true;
  return parent.elements.length === 2 && parent.elements[0] === node;
}

/** Where a short text is read by a user: a label-like property (`label`, `tooltip`…) or a row's label. */
function shownProperty(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isPropertyAssignment(parent) && parent.initializer === node) return SHOWN_PROPERTIES.has(parent.name.getText());
  return ts.isArrayLiteralExpression(parent) && parent.elements.length === 2 && parent.elements[0] === node;
}

/** A value with a word around it (`{} offers`, `{} GB free`), as a label shows it. */
function wordAroundValue(shown: string): boolean {
  const text = withoutCodicons(shown);
  return text.includes('{}') && !isCode(text) && /\b[A-Za-z][a-z]{2,}\b/.test(text.replace(/\{\}/g, ' '));
}

/** Whether `node` is the message of a localising call. */
function localised(node: ts.Node): boolean {
  const parent = node.parent;
  return ts.isCallExpression(parent) && LOCALISERS.has(parent.expression.getText()) && parent.arguments[0] === node;
}

/** The text a string literal or template shows, with `{}` where a template interpolates. */
export function literalText(node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression): string {
  if (!ts.isTemplateExpression(node)) return node.text;
  return node.head.text + node.templateSpans.map((s) => `{}${s.literal.text}`).join('');
}

/**
 * The string literal types a file declares (`type ErrorAction = 'Show Logs' | …`). A string equal to
 * one of them is an identifier that code compares, whatever it reads like; its label in the display
 * language comes from a function beside the type (`errorActionLabel`).
 */
export function literalTypes(file: ts.SourceFile): Set<string> {
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) found.add(node.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every prose string of a file, localised or not, outermost first; `unlocalised` says which need work. */
export function proseStrings(
  file: ts.SourceFile,
  identifiers: ReadonlySet<string> = new Set(),
): Array<{ node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression; unlocalised: boolean }> {
  const found: Array<{ node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression; unlocalised: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      if (
        !exempt(node) &&
        !identifiers.has(literalText(node)) &&
        (isProse(literalText(node)) ||
          (isWord(literalText(node)) && shownAlone(node)) ||
          (wordAroundValue(literalText(node)) && shownProperty(node)))
      )
        found.push({ node, unlocalised: !localised(node) });
      if (ts.isTemplateExpression(node)) for (const span of node.templateSpans) visit(span.expression);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The unlocalised prose strings of some files, given as name → source. */
export function findUnlocalised(sources: ReadonlyMap<string, string>): Finding[] {
  const files = [...sources].map(([name, source]) => ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true));
  const identifiers = new Set(files.flatMap((f) => [...literalTypes(f)]));
  return files.flatMap((file) => unlocalisedIn(file, identifiers));
}

function unlocalisedIn(file: ts.SourceFile, identifiers: ReadonlySet<string>): Finding[] {
  const fileName = file.fileName;
  return proseStrings(file, identifiers)
    .filter((s) => s.unlocalised)
    .map(({ node }) => ({
      file: fileName,
      line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      text: literalText(node),
    }));
}

/** The most `{n}` one message may hold: more, and a translator cannot see the sentence. */
export const MAX_PLACEHOLDERS = 4;

/** Messages that begin or end with whitespace: pieces glued to other text rather than one whole sentence. */
export function paddedMessages(messages: Iterable<string>): string[] {
  return [...messages].filter((m) => /^\s|\s$/.test(m));
}

/** Messages with more than {@link MAX_PLACEHOLDERS} distinct placeholders. */
export function crowdedMessages(messages: Iterable<string>): string[] {
  return [...messages].filter((m) => new Set(m.match(/\{\d+\}/g) ?? []).size > MAX_PLACEHOLDERS);
}

/**
 * An English ending or word glued on through an argument (`'{0} offer{1}'` with `'s'`, `n === 1 ?
 * 'was' : 'were'`): a translator cannot inflect it. Each count form is its own message instead.
 */
const SUFFIX = /^\s*(s|es|ies|y|is|are|was|were|has|have|does|do|it|they|them|its|their|s were|s are|s have|bid)\s*$/;

/** Arguments of localising calls that pass a bare English suffix literal (`'s'`, `' was'`…), as `file:line text`. */
export function suffixArguments(sources: ReadonlyMap<string, string>): Finding[] {
  const found: Finding[] = [];
  for (const [name, text] of sources) {
    const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && LOCALISERS.has(node.expression.getText(file))) {
        for (const arg of node.arguments.slice(1)) {
          const inArg = (x: ts.Node): void => {
            if (ts.isCallExpression(x)) return; // a nested message or a formatter answers for itself
            if (ts.isStringLiteralLike(x) && SUFFIX.test(x.text))
              found.push({ file: name, line: file.getLineAndCharacterOfPosition(x.getStart(file)).line + 1, text: x.text });
            ts.forEachChild(x, inArg);
          };
          inArg(arg);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}
