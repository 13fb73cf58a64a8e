import type { Instance } from '../api/instances';
import type { TemplateFields } from '../api/templates';
import { WATCHDOG_BEGIN, WATCHDOG_END } from '../idle/watchdog';
import { RESUME_HOOK_BEGIN, RESUME_HOOK_END } from '../jobs/resumeScripts';

/** `script` without the block between `begin` and `end` (and the line break after it); unchanged without one. */
function withoutBlock(script: string, begin: string, end: string): string {
  const start = script.indexOf(begin);
  const stop = script.indexOf(end);
  if (start === -1 || stop === -1 || stop < start) return script;
  return script.slice(0, start) + script.slice(stop + end.length).replace(/^\n/, '');
}

/** The user's own start-up script, without what a rent put in front of it: the idle watchdog and the jobs' resume hook. */
export function withoutWatchdog(script: string | null | undefined): string | undefined {
  if (!script) return undefined;
  const rest = withoutBlock(withoutBlock(script, WATCHDOG_BEGIN, WATCHDOG_END), RESUME_HOOK_BEGIN, RESUME_HOOK_END);
  return rest.trim() ? rest : undefined;
}

/** A template's fields from what an instance was rented with: image, start-up script, disk, how it connects. */
export function templateFromInstance(instance: Instance, name: string): TemplateFields {
  const [image, tag] = splitImage(instance.image_uuid ?? 'ubuntu:22.04');
  const runtype = instance.image_runtype ?? '';
  return {
    name,
    image,
    tag,
    onstart: withoutWatchdog(instance.onstart),
    runtype: /jupyter/.test(runtype) ? 'jupyter' : /args/.test(runtype) ? 'args' : 'ssh',
    ssh_direct: /direc/.test(runtype),
    use_ssh: !/args/.test(runtype),
    recommended_disk_space: instance.disk_space ?? undefined,
    private: true,
  };
}

/**
 * An image reference as a template's image and tag: the tag is what follows the last ':' after the
 * last '/', so a registry port is not one ("registry:5000/name:1.0" -> ["registry:5000/name", "1.0"]).
 * A reference pinned by digest ("name@sha256:...") stays whole as the image, with no tag: the digest
 * names the image exactly, and "image:tag" could not carry it.
 */
export function splitImage(ref: string): [string, string | undefined] {
  const text = ref.trim();
  if (text.includes('@')) return [text, undefined];
  const slash = text.lastIndexOf('/');
  const colon = text.lastIndexOf(':');
  return colon > slash && colon < text.length - 1
    ? [text.slice(0, colon), text.slice(colon + 1)]
    : [colon === text.length - 1 ? text.slice(0, -1) : text, undefined];
}

/** A template's image and tag as one reference, the way the service puts them together. */
export function joinImage(image: string | null | undefined, tag: string | null | undefined): string {
  const ref = image ?? '';
  if (!tag || ref.includes('@') || splitImage(ref)[1] !== undefined) return ref;
  return `${ref}:${tag}`;
}

/**
 * The fields an edit of a template's image sends. An untagged reference means "latest", as for
 * docker pull, and says so: leaving the tag out would keep the template's old one.
 */
export function imageFields(ref: string): { image: string; tag: string } {
  const [image, tag] = splitImage(ref);
  return { image, tag: tag ?? 'latest' };
}

/** Lists that store template hashes follow an edit: the old hash becomes the new one. */
export function followHash(list: readonly string[], oldHash: string, newHash: string): string[] {
  return list.map((h) => (h === oldHash ? newHash : h));
}
