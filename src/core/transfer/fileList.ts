/**
 * The files an upload sends, as a list: what a tar upload packs, and what Run on Cluster's nodes
 * copy from rank 0 (jobs/cluster/fanout.ts), so that the nodes get exactly what the upload sent.
 */
import { cleanPatterns } from './argv';
import { ignoreRules, isIgnoredWithFolders, keptFiles } from './ignore';
import { collect } from './pipe';

/** How the files go: rsync reads the excludes and each `.gitignore` itself; tar is handed a list, git's in a work tree. */
export type ListedBy = 'rsync' | 'tar';

/** The files git lists in `dir` when it is in a work tree (git's own reading of every ignore file); else undefined. */
async function gitFileList(dir: string, git = 'git'): Promise<string[] | undefined> {
  const inside = await collect(git, ['-C', dir, 'rev-parse', '--is-inside-work-tree']);
  if (inside.code !== 0 || inside.stdout.trim() !== 'true') return undefined;
  const listed = await collect(git, ['-C', dir, 'ls-files', '-co', '--exclude-standard', '-z']);
  if (listed.code !== 0) return undefined;
  return listed.stdout.split('\0').filter(Boolean);
}

/**
 * The files (and, outside git, the folders, each before what it holds) an upload of `localDir`
 * sends, relative to it: minus the exclude patterns and what each folder's `.gitignore` names. A
 * tar upload in a git work tree takes git's list minus the excludes; elsewhere keptFiles reads the
 * rules as git does (ignore.ts). rsync (`--exclude` and `--filter=:- .gitignore`, argv.ts) reads
 * names, `/` anchors, folders and `[abc]` classes the same, but not git's `!` (a literal name to
 * rsync) nor an inner `/` (unanchored to rsync).
 */
export async function uploadFileList(
  localDir: string,
  excludes: readonly string[],
  by: ListedBy,
  tools: { git?: string } = {},
): Promise<string[]> {
  const rules = ignoreRules(cleanPatterns(excludes));
  const listed = by === 'tar' ? await gitFileList(localDir, tools.git) : undefined;
  return listed ? listed.filter((f) => !isIgnoredWithFolders(f, rules)) : keptFiles(localDir, rules);
}
