/**
 * What a tar upload leaves out when git cannot list the files: the `gpuRental.sync.exclude`
 * patterns and each folder's `.gitignore`, read with the rules rsync's `:- .gitignore` and git
 * share (a name without a slash matches at any depth, a trailing `/` matches folders only, a
 * leading or inner `/` anchors to the file's folder, `!` keeps again, the last match wins).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface IgnoreRule {
  readonly re: RegExp;
  readonly folderOnly: boolean;
  readonly keep: boolean;
  /** The folder the rule's anchor is (relative, '' for the top). */
  readonly base: string;
}

/** Rules from pattern lines (a .gitignore's, or the setting's), anchored at `base`. */
export function ignoreRules(lines: readonly string[], base = ''): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of lines) {
    let p = raw.replace(/\s+$/, '');
    if (!p || p.startsWith('#')) continue;
    const keep = p.startsWith('!');
    if (keep) p = p.slice(1);
    const folderOnly = p.endsWith('/');
    p = p.replace(/\/+$/, '');
    const anchored = p.includes('/');
    p = p.replace(/^\/+/, '');
    if (!p) continue;
    const parts = p.split('/');
    const body = parts
      .map((part, at) => {
        const last = at === parts.length - 1;
        if (part === '**') return last ? '.*' : '(?:.*/)?';
        return (
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]') + (last ? '' : '/')
        );
      })
      .join('');
    rules.push({ re: new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`), folderOnly, keep, base });
  }
  return rules;
}

/** Whether `path` (relative to the top, a folder when `folder`) is left out: the last rule that matches decides. */
export function isIgnored(path: string, folder: boolean, rules: readonly IgnoreRule[]): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.base && !path.startsWith(`${rule.base}/`)) continue;
    if (rule.folderOnly && !folder) continue;
    const rel = rule.base ? path.slice(rule.base.length + 1) : path;
    if (rule.re.test(rel)) ignored = !rule.keep;
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
