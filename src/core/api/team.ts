import * as z from 'zod';
import { listOf, optInt, optString, type RequestOptions } from './fields';
import type { Permissions } from './permissions';
import type { Transport } from './transport';
import { l10n } from '../l10n';

export const TeamMemberSchema = z.object({
  id: z.int(),
  email: optString,
  username: optString,
  fullname: optString,
  roles: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
});
export type TeamMember = z.output<typeof TeamMemberSchema>;

export const TeamRoleSchema = z.object({
  id: optInt,
  name: z.string(),
  identifier: optString,
  permissions: z.record(z.string(), z.unknown()).nullish(),
});
export type TeamRole = z.output<typeof TeamRoleSchema>;

/** Team routes answer `{status: "success"|"failure", message}`, a bare message string, or `{msg}`. */
const TeamAnswer = z.union([z.string(), z.object({ status: optString, message: optString, msg: optString })]);

export class TeamApi {
  constructor(private readonly t: Transport) {}

  members(o: RequestOptions = {}): Promise<TeamMember[]> {
    return this.t.send({
      action: l10n.t('list team members'),
      method: 'GET',
      path: '/api/v0/team/members/',
      schema: listOf(TeamMemberSchema, 'members'),
      permission: 'team_read',
      retry: 'read',
      ...o,
    });
  }

  /** The CLI sends email and role in the query and the reference documents a body; both are sent. */
  async invite(email: string, role: string, o: RequestOptions = {}): Promise<void> {
    await this.t.send({
      action: `invite ${email}`,
      method: 'POST',
      path: '/api/v0/team/invite/',
      query: { email, role },
      body: { email, role },
      schema: TeamAnswer,
      permission: 'team_write',
      retry: 'write',
      ...o,
    });
  }

  async removeMember(userId: number, o: RequestOptions = {}): Promise<void> {
    await this.t.send({
      action: l10n.t('remove team member {0}', userId),
      method: 'DELETE',
      path: `/api/v0/team/members/${userId}/`,
      schema: TeamAnswer,
      permission: 'team_write',
      retry: 'write',
      ...o,
    });
  }

  roles(o: RequestOptions = {}): Promise<TeamRole[]> {
    return this.t.send({
      action: l10n.t('list team roles'),
      method: 'GET',
      path: '/api/v0/team/roles-full/',
      schema: listOf(TeamRoleSchema, 'roles'),
      permission: 'team_read',
      retry: 'read',
      ...o,
    });
  }

  async createRole(name: string, permissions: Permissions, o: RequestOptions = {}): Promise<void> {
    await this.t.send({
      action: l10n.t('create role "{0}"', name),
      method: 'POST',
      path: '/api/v0/team/roles/',
      body: { name, permissions },
      schema: TeamAnswer,
      permission: 'team_write',
      retry: 'write',
      ...o,
    });
  }

  /** Roles are updated by numeric id and deleted by name, as the service routes them. */
  async updateRole(id: number, name: string, permissions: Permissions, o: RequestOptions = {}): Promise<void> {
    await this.t.send({
      action: l10n.t('update role "{0}"', name),
      method: 'PUT',
      path: `/api/v0/team/roles/${id}/`,
      body: { name, permissions },
      schema: TeamAnswer,
      permission: 'team_write',
      retry: 'read',
      ...o,
    });
  }

  async deleteRole(name: string, o: RequestOptions = {}): Promise<void> {
    await this.t.send({
      action: l10n.t('delete role "{0}"', name),
      method: 'DELETE',
      path: `/api/v0/team/roles/${encodeURIComponent(name)}/`,
      schema: TeamAnswer,
      permission: 'team_write',
      retry: 'write',
      ...o,
    });
  }
}
