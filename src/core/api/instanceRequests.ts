/**
 * What the extension asks of the service about instances: a rent's request, a list page's
 * request, and the checks made before a rent is sent. Plain types and text; no zod.
 */
import { LABEL_MAX_CHARS, ONSTART_MAX_CHARS } from './limits';
import { l10n } from '../l10n';

export interface VolumeAttachment {
  create_new: boolean;
  /** An existing volume id, or a volume offer id when `create_new` is true. */
  volume_id: number;
  size?: number;
  mount_path: string;
  name?: string;
}

export interface CreateInstanceRequest {
  /** Either a template, or an image (with an optional start-up script). */
  template_hash_id?: string;
  image?: string;
  onstart?: string;
  /** GB. */
  disk: number;
  /** `ssh_direct` (direct port), `ssh_proxy`/`ssh` (through the service's proxy), `jupyter_*`, `args`. */
  runtype?: string;
  label?: string;
  env?: Record<string, string>;
  args?: string[];
  /** A bid in $/hour; its presence makes the instance interruptible. */
  price?: number;
  image_login?: string;
  target_state?: 'running' | 'stopped';
  cancel_unavail?: boolean;
  volume_info?: VolumeAttachment;
}

export interface ListPageRequest {
  limit?: number;
  afterToken?: string;
  orderBy?: Array<{ col: string; dir: 'asc' | 'desc' }>;
  selectFilters?: Record<string, Record<string, unknown>>;
}

/** Client-side checks that save a round trip and give a clearer message than the service. */
export function checkCreate(request: CreateInstanceRequest): string | undefined {
  if (!request.template_hash_id && !request.image) return l10n.t('choose an image or a template');
  if (!(request.disk > 0)) return l10n.t('the disk size must be a positive number of GB');
  if (request.onstart && request.onstart.length > ONSTART_MAX_CHARS)
    return l10n.t('the start-up script has {0} characters; the service accepts at most {1}', request.onstart.length, ONSTART_MAX_CHARS);
  if (request.label && request.label.length > LABEL_MAX_CHARS) return l10n.t('a label may have at most {0} characters', LABEL_MAX_CHARS);
  const joins = Object.keys(request.env ?? {}).filter(isOverlayJoinKey);
  if (joins.length > 1) return l10n.t('an instance can join only one overlay network, and this rent names {0}', joins.length);
  const joined = joins[0] === undefined ? undefined : overlayNameProblem(joins[0].trim().slice(2).trim());
  if (joined) return joined;
  return undefined;
}

// ---- Joining an overlay network at rent ------------------------------------------------------------

/** An overlay network's name, as the service accepts it: lower-case letters, digits and hyphens. */
export const OVERLAY_NAME = /^[a-z0-9-]+$/;

/** Why `name` cannot name an overlay network, or undefined when it can. */
export function overlayNameProblem(name: string): string | undefined {
  if (name === '') return l10n.t('an overlay network needs a name');
  if (!OVERLAY_NAME.test(name))
    return l10n.t("the overlay network name '{0}' may hold only lower-case letters, digits and hyphens (a-z, 0-9, -)", name);
  return undefined;
}

/**
 * A create body's `env` key that joins an overlay: `-n NAME` (what the CLI's `--env "-n NAME"`
 * becomes), whose value is "1". Keys starting with `-` are container options, not variables.
 */
export function overlayJoinKey(name: string): string {
  return `-n ${name}`;
}

function isOverlayJoinKey(key: string): boolean {
  return /^\s*-n(?:\s|$)/.test(key);
}

export type OverlayJoin = { ok: true; env: Record<string, string> } | { ok: false; problem: string };

/**
 * The `env` of a rent that joins the overlay network `name`: the user's variables as they are,
 * plus `{"-n NAME": "1"}`. A name the service would refuse is refused here, and so is a user
 * key that would join a network itself (any `-n …` key but this very one): a node must never land
 * in another network than its cluster's.
 */
export function joinOverlayEnv(name: string, userEnv: Readonly<Record<string, string>> = {}): OverlayJoin {
  const problem = overlayNameProblem(name);
  if (problem) return { ok: false, problem };
  const key = overlayJoinKey(name);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(userEnv)) {
    if (isOverlayJoinKey(k) && k !== key)
      return { ok: false, problem: l10n.t("the variable '{0}' would join another overlay network; remove it to rent into '{1}'", k, name) };
    Object.defineProperty(env, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  env[key] = '1';
  return { ok: true, env };
}
