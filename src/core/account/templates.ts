import type { Instance } from '../api/instances';
import type { TemplateFields } from '../api/templates';
import { WATCHDOG_BEGIN, WATCHDOG_END } from '../idle/watchdog';

/** The user's own start-up script, without the idle watchdog a rent put in front of it. */
export function withoutWatchdog(script: string | null | undefined): string | undefined {
  if (!script) return undefined;
  const start = script.indexOf(WATCHDOG_BEGIN);
  const end = script.indexOf(WATCHDOG_END);
  if (start === -1 || end === -1 || end < start) return script;
  const rest = script.slice(0, start) + script.slice(end + WATCHDOG_END.length).replace(/^\n/, '');
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

/** "pytorch/pytorch:2.5" -> ["pytorch/pytorch", "2.5"]; a registry port is not a tag. */
export function splitImage(ref: string): [string, string | undefined] {
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? [ref.slice(0, colon), ref.slice(colon + 1)] : [ref, undefined];
}

/** Lists that store template hashes follow an edit: the old hash becomes the new one. */
export function followHash(list: readonly string[], oldHash: string, newHash: string): string[] {
  return list.map((h) => (h === oldHash ? newHash : h));
}
