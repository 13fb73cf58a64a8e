import * as z from 'zod';
import { logUnreadable, optString, recordId, tolerantArray, type RequestOptions } from './fields';
import type { Transport } from './transport';
import { l10n } from '../l10n';

/*
 * The service's own copy commands: a folder from one instance to another (`copy_direct`), and
 * between an instance and one of the account's cloud connections (`rclone`). Both only start the
 * work; the service reports its progress in the destination instance's status message (see
 * core/instances/copyProgress.ts). Starting one is a change whose lost answer leaves the outcome
 * unknown (the copy may be running), so neither start is ever retried once it may have been sent.
 */

/** One of the account's cloud connections (an S3 bucket, a Google Drive, ...), as set up in the console. */
export const CloudConnectionSchema = z.object({
  id: recordId,
  cloud_type: optString,
  name: optString,
});
export type CloudConnection = z.output<typeof CloudConnectionSchema>;

/** The service answers a bare list; a record without a usable id cannot be chosen, so it is left out. */
const CloudConnectionListSchema = tolerantArray(CloudConnectionSchema, { missing: 'invalid' });

/** What a started copy or sync answered: the service's message (it says where progress shows). */
const StartedSchema = z.object({ msg: optString, result_url: optString });

/** The direction of a cloud sync, in the service's own words (the `transfer` field). */
export type CloudDirection = 'Instance To Cloud' | 'Cloud To Instance';
export const CLOUD_DIRECTIONS: readonly CloudDirection[] = ['Instance To Cloud', 'Cloud To Instance'];

export interface CopyRequest {
  srcId: number;
  dstId: number;
  srcPath: string;
  dstPath: string;
}

export interface CloudSyncRequest {
  instanceId: number;
  connectionId: number;
  direction: CloudDirection;
  /** On the instance for Instance To Cloud, in the bucket for Cloud To Instance. */
  src: string;
  dst: string;
  /** rclone flags, passed on as given (`--dry-run`, `--size-only`, ...). */
  flags?: readonly string[];
}

export class CopyApi {
  constructor(private readonly t: Transport) {}

  /**
   * Starts copying `srcPath` of one instance to `dstPath` of another. Ids travel as strings, as
   * documented (the service also names volumes and buckets that way). Resolves with the service's
   * message once it has accepted the copy; the copy itself goes on after.
   */
  async copyBetweenInstances(request: CopyRequest, o: RequestOptions = {}): Promise<{ message: string | undefined }> {
    const res = await this.t.send({
      action: l10n.t('copy {0} of instance {1} to instance {2}', request.srcPath, request.srcId, request.dstId),
      method: 'PUT',
      path: '/api/v0/commands/copy_direct/',
      body: {
        client_id: 'me',
        src_id: String(request.srcId),
        dst_id: String(request.dstId),
        src_path: request.srcPath,
        dst_path: request.dstPath,
      },
      schema: StartedSchema,
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
    return { message: res.msg ?? undefined };
  }

  /** Cancels the copy running into instance `dstId`. */
  cancelCopy(dstId: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('cancel the copy to instance {0}', dstId),
      method: 'DELETE',
      path: '/api/v0/commands/copy_direct/',
      body: { client_id: 'me', dst_id: String(dstId) },
      schema: z.unknown().transform(() => undefined),
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
  }

  /** The account's cloud connections; none means the user has not added one in the console yet. */
  async cloudConnections(o: RequestOptions = {}): Promise<CloudConnection[]> {
    const list = await this.t.send({
      action: l10n.t('list cloud connections'),
      method: 'GET',
      path: '/api/v0/users/cloud_integrations/',
      schema: CloudConnectionListSchema,
      permission: 'user_read',
      retry: 'read',
      ...o,
    });
    logUnreadable(this.t.logger, l10n.t('list cloud connections'), list);
    return list;
  }

  /** Starts an rclone sync between an instance and a cloud connection, in the direction given. */
  async cloudSync(request: CloudSyncRequest, o: RequestOptions = {}): Promise<{ message: string | undefined }> {
    const towards = request.direction === 'Instance To Cloud' ? l10n.t('to cloud storage') : l10n.t('from cloud storage');
    const res = await this.t.send({
      action: l10n.t('sync instance {0} {1}', request.instanceId, towards),
      method: 'POST',
      path: '/api/v0/commands/rclone/',
      body: {
        instance_id: String(request.instanceId),
        src: request.src,
        dst: request.dst,
        selected: String(request.connectionId),
        transfer: request.direction,
        flags: [...(request.flags ?? [])],
      },
      schema: StartedSchema,
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
    return { message: res.msg ?? undefined };
  }

  /** Cancels the sync running on instance `dstId` (documented as an integer here, unlike the copy's). */
  cancelCloudSync(dstId: number, o: RequestOptions = {}): Promise<void> {
    return this.t.send({
      action: l10n.t('cancel the cloud sync of instance {0}', dstId),
      method: 'DELETE',
      path: '/api/v0/commands/rclone/',
      body: { dst_id: dstId },
      schema: z.unknown().transform(() => undefined),
      permission: 'instance_write',
      retry: 'write',
      ...o,
    });
  }
}
