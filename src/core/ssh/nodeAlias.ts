import { nodeIndex } from '../instances/cluster';
import { aliasPrefix, parseHostAlias } from './config';

/**
 * A cluster node's friendly SSH name: Rent Cluster labels its nodes `<cluster label>-node<k>`, and
 * a terminal user wants `ssh gpu-rental-train-node1` rather than the instance id. The name is a
 * second name on the node's Host line beside its id alias, which stays the one that identifies the
 * instance (Remote-SSH windows, known hosts, cleanup). A name reaches one instance only: the
 * manager takes it off any other managed entry that carried it (withoutHostName).
 */

/** Longer slugs are refused rather than cut: a cut name could reach the wrong node. */
export const MAX_NODE_SLUG = 60;

/** `Train Run #2-node0` → `train-run-2-node0`: lowercase, accents dropped, every other run of characters one dash, trimmed. */
export function aliasSlug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The friendly name of an instance labelled like a cluster node (`train-node1` →
 * `gpu-rental-[profile-]train-node1`), or undefined: not a node label, a cluster part with no
 * letter or digit left (`日本-node0` would be a bare `node0` every such cluster shares), a slug over
 * MAX_NODE_SLUG, or a name that would read as an instance's id alias.
 */
export function nodeAlias(label: string | null | undefined, profile?: string): string | undefined {
  if (nodeIndex(label) === undefined) return undefined;
  const slug = aliasSlug(label ?? '');
  if (slug.length > MAX_NODE_SLUG || !/^[a-z0-9]+(?:-[a-z0-9]+)*-node\d+$/.test(slug)) return undefined;
  const alias = `${aliasPrefix(profile)}${slug}`;
  return parseHostAlias(alias) ? undefined : alias;
}

/**
 * One managed host file's text without `name` on its Host lines (matched without case, as ssh
 * does); every other byte as it was. A Host line that would be left with no name keeps it:
 * an empty Host line is not ssh_config.
 */
export function withoutHostName(text: string, name: string): { text: string; changed: boolean } {
  const wanted = name.toLowerCase();
  let changed = false;
  const lines = text.split('\n').map((line) => {
    const m = /^([ \t]*host(?:[ \t]+|[ \t]*=[ \t]*))(.*?)([ \t]*\r?)$/i.exec(line);
    if (!m) return line;
    const names = m[2]!.split(/[ \t]+/).filter(Boolean);
    const kept = names.filter((n) => n.toLowerCase() !== wanted);
    if (kept.length === names.length || kept.length === 0) return line;
    changed = true;
    return `${m[1]!}${kept.join(' ')}${m[3]!}`;
  });
  return { text: changed ? lines.join('\n') : text, changed };
}
