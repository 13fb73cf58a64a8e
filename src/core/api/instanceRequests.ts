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
  return undefined;
}
