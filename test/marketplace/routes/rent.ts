/**
 * `PUT /api/v0/asks/{offer_id}/`: rent an offer. From a template (its image, start-up script,
 * env and run type; body fields override, env merges by name) or from an image. This file reads
 * and checks the request; `openRental` (rental.ts) makes the contract and the instance.
 */
import type { TemplateRecord, VolumeRecord } from '../model';
import { checkJoin, join, overlayNamed } from '../overlays';
import { openRental } from '../rental';
import { fail, intParam, isObject, num, ok, str, type Ctx, type RouteDef } from '../router';
import { mergeEnv, parseEnvFlags } from '../templates';
import { isRentable } from './offers';
import { visibleTemplates } from './templates';
import { createVolume } from './volumes';

export const ONSTART_MAX = 4048;
export const LABEL_MAX = 1024;
/** Disk size when neither the body nor the template names one (GB). */
const DEFAULT_DISK = 8;

/** The overlay a create joins: the env key `-n NAME` (what the CLI's `--env "-n NAME"` becomes, value "1"). */
function overlayName(env: Array<[string, string]>, askId: number): string | undefined {
  const names = env.map(([k]) => /^-n\s+(\S+)$/.exec(k.trim())?.[1]).filter((n): n is string => n !== undefined);
  if (names.length > 1)
    throw fail(400, 'invalid_args', 'An instance joins one overlay network; the env names more than one (-n).', { ask_id: askId });
  return names[0];
}

function bodyEnv(raw: unknown): Array<[string, string]> {
  if (typeof raw === 'string') return parseEnvFlags(raw);
  if (!isObject(raw)) return [];
  return Object.entries(raw).map(([k, v]): [string, string] => [k, v === null || v === undefined ? '' : String(v)]);
}

/** The run type a template implies when the body names none. */
function templateRuntype(t: TemplateRecord): string {
  if (t.runtype === 'jupyter') return t.jup_direct ? 'jupyter_direc ssh_direc ssh_proxy' : 'jupyter_proxy ssh_proxy';
  if (t.runtype === 'ssh' || t.use_ssh) return t.ssh_direct ? 'ssh_direc ssh_proxy' : 'ssh_proxy';
  return 'args';
}

function imageRef(image: string, tag: string | null | undefined): string {
  const last = image.split('/').at(-1) ?? image;
  return tag && !last.includes(':') && !image.includes('@') ? `${image}:${tag}` : image;
}

function resolveVolume(ctx: Ctx, raw: unknown, machineId: number): { volume: VolumeRecord; mount: string } | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw fail(400, 'invalid_args', 'volume_info must be an object.');
  const mount = str(raw.mount_path) ?? '/data';
  const id = num(raw.volume_id);
  if (id === undefined) throw fail(400, 'invalid_args', 'volume_info.volume_id is required.');
  if (raw.create_new === true) {
    return { volume: createVolume(ctx, id, num(raw.size) ?? 15, str(raw.name) ?? null, machineId), mount };
  }
  const volume = ctx.sim.store.data.volumes.find((v) => v.id === id && v.accountId === ctx.account.id);
  if (!volume) throw fail(404, 'no_such_volume', `Volume ${id} does not exist.`);
  if (volume.machineId !== machineId) throw fail(400, 'invalid_args', 'A local volume must be on the same machine as the instance.');
  return { volume, mount };
}

function rent(ctx: Ctx) {
  const { sim, body, account, now } = ctx;
  const store = sim.store;
  const askId = intParam(ctx, 'id');
  const offer = sim.offerById.get(askId);
  if (!offer || !isRentable(sim, offer))
    throw fail(404, 'invalid_args', `no_such_ask Instance type by id ${askId} is not available.`, { ask_id: askId });

  let template: TemplateRecord | undefined;
  const hash = str(body.template_hash_id);
  const templateId = num(body.template_id);
  if (hash || templateId !== undefined) {
    template = visibleTemplates(ctx).find((t) => (hash ? t.hash_id === hash : t.id === templateId));
    if (!template) throw fail(404, 'invalid_args', `Template ${hash ?? templateId} not found.`, { ask_id: askId });
  }
  const image = str(body.image) || (template ? imageRef(template.image, template.tag) : undefined);
  if (!image) throw fail(400, 'invalid_args', 'Invalid args: an image or a template_hash_id is required.', { ask_id: askId });
  const onstart = str(body.onstart) ?? template?.onstart ?? null;
  if (onstart && onstart.length > ONSTART_MAX)
    throw fail(400, 'invalid_args', `onstart is ${onstart.length} characters; the limit is ${ONSTART_MAX}. Compress longer scripts.`, {
      ask_id: askId,
    });
  const label = str(body.label) ?? null;
  if (label && label.length > LABEL_MAX)
    throw fail(400, 'invalid_args', `label is longer than ${LABEL_MAX} characters.`, { ask_id: askId });
  const disk = num(body.disk) ?? template?.recommended_disk_space ?? DEFAULT_DISK;
  if (!(disk > 0)) throw fail(400, 'invalid_args', 'disk must be a positive number of GB.', { ask_id: askId });
  if (disk > offer.disk_space)
    throw fail(400, 'invalid_args', `disk ${disk} GB is more than the ${offer.disk_space} GB this offer has.`, { ask_id: askId });
  const price = body.price === undefined || body.price === null ? undefined : num(body.price);
  if (body.price !== undefined && body.price !== null) {
    if (price === undefined || price < 0.001 || price > 128)
      throw fail(400, 'invalid_price', 'price must be between 0.001 and 128 $/hour.', { ask_id: askId });
    if (price < offer.min_bid)
      throw fail(400, 'invalid_price', `Your bid ${price} is below the current minimum bid ${offer.min_bid}.`, { ask_id: askId });
  }
  if (store.balance(account.id, now) <= 0)
    throw fail(400, 'insufficient_credit', 'Your account has no credit left; add credit to rent.', { ask_id: askId });
  const targetState = str(body.target_state) ?? 'running';
  if (targetState !== 'running' && targetState !== 'stopped')
    throw fail(400, 'invalid_args', "target_state must be 'running' or 'stopped'.", { ask_id: askId });
  // Checked before anything is made (a new volume included): a refused join rents nothing.
  const env = mergeEnv(template ? parseEnvFlags(template.env) : [], bodyEnv(body.env));
  const joining = overlayName(env, askId);
  const overlay = joining === undefined ? undefined : overlayNamed(store.data, account.id, joining);
  if (overlay) checkJoin(overlay, offer, `Offer ${askId}`);
  const volume = resolveVolume(ctx, body.volume_info, offer.machine_id);

  const runtype = str(body.runtype) ?? (template ? templateRuntype(template) : 'ssh_proxy');
  const args = Array.isArray(body.args)
    ? body.args.map(String)
    : (str(body.args_str)?.split(/\s+/).filter(Boolean) ?? (template?.args_str ? template.args_str.split(/\s+/) : []));
  const { inst, apiKey } = openRental(sim, {
    account,
    offer,
    now,
    image,
    onstart,
    env,
    args,
    runtype,
    label,
    diskGb: disk,
    bid: price,
    template,
    volume,
    clientId: str(body.client_id) ?? null,
    stopped: targetState === 'stopped',
  });
  if (overlay) join(overlay, inst);
  return ok({ success: true, new_contract: inst.id, instance_api_key: apiKey.key });
}

export const rentRoutes: RouteDef[] = [
  { method: 'PUT', path: '/api/v0/asks/:id', category: 'instance_write', action: 'api.instance.create', handler: rent },
  { method: 'POST', path: '/api/v0/asks/:id', category: 'instance_write', action: 'api.instance.create', handler: rent },
];
