/**
 * What a tar upload leaves out when git cannot list the files: the `gpuRental.sync.exclude`
 * patterns and each folder's `.gitignore`, matched by the `ignore` package (git's own rules, as
 * ESLint and Prettier read them: a name without a slash matches at any depth, a trailing `/`
 * matches folders only, a leading or inner `/` anchors to the file's folder, `[abc]` classes, `**`,
 * `!` keeps again, the last match wins). Case-sensitive, as git on Linux and rsync are.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** The pattern lines of one file (a .gitignore's, or the setting's), anchored at their folder. */
export interface IgnoreRule {
  /** The lines' matcher; a path is handed to it relative to `base`, a folder's with a trailing `/`. */
  readonly matcher: Ignore;
  /** The folder the lines' anchor is (relative, '' for the top). */
  readonly base: string;
}

/** Rules from pattern lines (a .gitignore's, or the setting's), anchored at `base`. */
export function ignoreRules(lines: readonly string[], base = ''): IgnoreRule[] {
  const kept = lines.filter((l) => l.trim() && !l.startsWith('#'));
  if (kept.length === 0) return [];
  return [{ matcher: ignore({ ignorecase: false, allowRelativePaths: true }).add(kept), base }];
}

/** Whether `path` (relative to the top, a folder when `folder`) is left out: the last rule that matches decides. */
export function isIgnored(path: string, folder: boolean, rules: readonly IgnoreRule[]): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.base && !path.startsWith(`${rule.base}/`)) continue;
    const rel = rule.base ? path.slice(rule.base.length + 1) : path;
    if (!rel) continue;
    const result = rule.matcher.test(folder ? `${rel}/` : rel);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/** Whether a file listed by git is left out by the rules, itself or through one of its folders. */
export function isIgnoredWithFolders(path: string, rules: readonly IgnoreRule[]): boolean {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) if (isIgnored(parts.slice(0, i).join('/'), true, rules)) return true;
  return isIgnored(path, false, rules);
}

/** Every folder and file under `dir` that is kept, relative, folders before what they hold. */
export async function keptFiles(dir: string, rules: readonly IgnoreRule[], prefix = ''): Promise<string[]> {
  const here = join(dir, prefix);
  const gitignore = await readFile(join(here, '.gitignore'), 'utf8').catch(() => undefined);
  const all = gitignore === undefined ? rules : [...rules, ...ignoreRules(gitignore.split(/\r?\n/), prefix)];
  const entries = await readdir(here, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const e of entries) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (isIgnored(rel, e.isDirectory(), all)) continue;
    out.push(rel);
    if (e.isDirectory()) out.push(...(await keptFiles(dir, all, rel)));
  }
  return out;
}
