/**
 * Team administration. Every account is its own team, owned by the account's user, with the roles
 * owner, manager and member to start with. Invitations are accepted at once (there is no second
 * user to accept them), so an invited address shows up as a member straight away.
 */
import { validPermissions } from '../auth';
import type { RoleRecord } from '../model';
import { HttpError, fail, intParam, isObject, ok, str, type Ctx, type RouteDef, saved } from '../router';

function roles(ctx: Ctx): RoleRecord[] {
  return ctx.sim.store.data.roles.filter((r) => r.accountId === ctx.account.id);
}

function identifier(name: string): string {
  return name.trim().toLowerCase().replace(/\W+/g, '_');
}

function failure(status: number, message: string): HttpError {
  return new HttpError(status, { status: 'failure', message });
}

function roleByName(ctx: Ctx): RoleRecord {
  const name = ctx.params.name ?? '';
  const role = roles(ctx).find((r) => r.name === name);
  if (!role) throw failure(404, `Role '${name}' not found.`);
  return role;
}

function checkRoleBody(ctx: Ctx): { name: string; permissions: Record<string, unknown> } {
  const name = str(ctx.body.name)?.trim();
  if (!name) throw fail(400, 'invalid_args', 'A role needs a name.');
  const problem = validPermissions(ctx.body.permissions);
  if (problem) throw fail(400, 'invalid_permissions', problem);
  return { name, permissions: ctx.body.permissions as Record<string, unknown> };
}

export const teamRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/v0/team/members',
    category: 'team_read',
    action: 'api.team.members',
    handler: (ctx) =>
      ok(
        ctx.sim.store.data.members
          .filter((m) => m.teamAccountId === ctx.account.id)
          .map((m) => ({ id: m.id, username: m.username, email: m.email, fullname: m.fullname, roles: [...m.roles] })),
      ),
  },
  {
    method: 'POST',
    path: '/api/v0/team/invite',
    category: 'team_write',
    action: 'api.team.invite',
    handler: (ctx) => {
      const email = str(ctx.body.email) ?? ctx.query.get('email') ?? '';
      const role = str(ctx.body.role) ?? ctx.query.get('role') ?? 'member';
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw fail(400, 'invalid_args', 'A valid email address is required.');
      if (!roles(ctx).some((r) => r.name === role)) throw fail(400, 'invalid_args', `Role '${role}' does not exist.`);
      if (role === 'owner') throw fail(400, 'invalid_args', 'The owner role cannot be given by invitation.');
      const store = ctx.sim.store;
      if (email === ctx.account.email) throw fail(400, 'invalid_args', 'You cannot invite yourself to your own team.');
      if (store.data.members.some((m) => m.teamAccountId === ctx.account.id && m.email === email))
        throw fail(400, 'invalid_args', `${email} is already a member of this team.`);
      store.data.members.push({
        id: store.nextId('member'),
        teamAccountId: ctx.account.id,
        username: email.split('@')[0] ?? email,
        email,
        fullname: null,
        roles: [role],
      });
      return saved(store, { success: true, msg: `New invitation sent to ${email}` });
    },
  },
  {
    method: 'DELETE',
    path: '/api/v0/team/members/:id',
    category: 'team_write',
    action: 'api.team.remove_member',
    handler: (ctx) => {
      const id = intParam(ctx, 'id');
      const data = ctx.sim.store.data;
      const member = data.members.find((m) => m.teamAccountId === ctx.account.id && m.id === id);
      if (!member) throw failure(404, `User ${id} is not a member of this team.`);
      if (member.roles.includes('owner')) throw failure(400, 'The team owner cannot be removed.');
      data.members = data.members.filter((m) => m !== member);
      return saved(ctx.sim.store, { status: 'success', message: 'User removed from the team.' });
    },
  },
  {
    method: 'GET',
    path: '/api/v0/team/roles-full',
    category: 'team_read',
    action: 'api.team.roles',
    handler: (ctx) =>
      ok(
        roles(ctx)
          .filter((r) => r.name !== 'owner')
          .map((r) => ({ id: r.id, name: r.name, identifier: identifier(r.name), permissions: r.permissions })),
      ),
  },
  {
    method: 'GET',
    path: '/api/v0/team/roles/:name',
    category: 'team_read',
    action: 'api.team.role',
    handler: (ctx) => {
      const role = roleByName(ctx);
      return ok({ id: role.id, name: role.name, permissions: role.permissions });
    },
  },
  {
    method: 'POST',
    path: '/api/v0/team/roles',
    category: 'team_write',
    action: 'api.team.create_role',
    handler: (ctx) => {
      const { name, permissions } = checkRoleBody(ctx);
      if (roles(ctx).some((r) => r.name === name)) throw fail(400, 'invalid_args', `A role named '${name}' already exists.`);
      ctx.sim.store.data.roles.push({ id: ctx.sim.store.nextId('role'), accountId: ctx.account.id, name, permissions });
      return saved(ctx.sim.store, { msg: 'success' });
    },
  },
  {
    method: 'PUT',
    path: '/api/v0/team/roles/:id',
    category: 'team_write',
    action: 'api.team.update_role',
    handler: (ctx) => {
      const id = intParam(ctx, 'id');
      const role = roles(ctx).find((r) => r.id === id);
      if (!role) throw fail(404, 'not_found', `Role ${id} not found.`);
      if (role.name === 'owner') throw fail(403, 'not_allowed', 'The owner role cannot be changed.');
      const { name, permissions } = checkRoleBody(ctx);
      if (roles(ctx).some((r) => r.name === name && r !== role)) throw fail(400, 'invalid_args', `A role named '${name}' already exists.`);
      const old = role.name;
      role.name = name;
      role.permissions = isObject(permissions) ? permissions : role.permissions;
      for (const m of ctx.sim.store.data.members)
        if (m.teamAccountId === ctx.account.id) m.roles = m.roles.map((r) => (r === old ? name : r));
      return saved(ctx.sim.store, `Successfully Updated Team Role For ${name}`);
    },
  },
  {
    method: 'DELETE',
    path: '/api/v0/team/roles/:name',
    category: 'team_write',
    action: 'api.team.remove_role',
    handler: (ctx) => {
      const role = roleByName(ctx);
      if (role.name === 'owner') throw failure(403, 'The owner role cannot be deleted.');
      ctx.sim.store.data.roles = ctx.sim.store.data.roles.filter((r) => r !== role);
      return saved(ctx.sim.store, { status: 'success', message: 'Role removed from team' });
    },
  },
];
