import * as vscode from 'vscode';
import type { TeamMember, TeamRole } from '../../core/api/team';
import { PERMISSION_CATEGORIES, isPermissionCategory, permissionsFor } from '../../core/api/permissions';
import { COMMANDS } from '../../core/ids';
import type { AccountAreaDeps } from './accountDeps';
import { TeamMemberItem, TeamRoleItem } from '../views/account/teamItems';
import { command, type CommandDefinition } from './registry';

/** Team members and roles: invite, remove (confirmed), create or update a role, delete one (confirmed). */
export function teamCommands(s: AccountAreaDeps): CommandDefinition[] {
  return [
    command(COMMANDS.inviteTeamMember, (email?: string, role?: string) => invite(s, email, role)),
    command(COMMANDS.removeTeamMember, (t?: TeamMemberItem | number) => remove(s, t)),
    command(COMMANDS.saveTeamRole, (t?: TeamRoleItem | string, categories?: string[]) => saveRole(s, t, categories)),
    command(COMMANDS.deleteTeamRole, (t?: TeamRoleItem | string) => deleteRole(s, t)),
  ];
}

async function invite(s: AccountAreaDeps, email: string | undefined, role: string | undefined): Promise<boolean> {
  const address =
    email ??
    (
      await vscode.window.showInputBox({
        title: vscode.l10n.t('GPU Rental: Invite to the team (1/2)'),
        prompt: vscode.l10n.t('Email address of the person to invite'),
        validateInput: (v) => (/^\S+@\S+\.\S+$/.test(v.trim()) ? undefined : vscode.l10n.t('Enter an email address.')),
      })
    )?.trim();
  if (!address) return false;
  const roleName =
    role ??
    (await vscode.window.showQuickPick(
      (await s.session.client.team.roles()).map((r) => r.name),
      { title: vscode.l10n.t('GPU Rental: Invite {0} (2/2): with which role?', address) },
    ));
  if (!roleName) return false;
  await s.session.client.team.invite(address, roleName);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: invited {0} as {1}.', address, roleName));
  return true;
}

async function remove(s: AccountAreaDeps, target: TeamMemberItem | number | undefined): Promise<boolean> {
  const members = await s.session.client.team.members();
  let member: TeamMember | undefined = target instanceof TeamMemberItem ? target.member : members.find((m) => m.id === target);
  if (target === undefined) {
    member = (
      await vscode.window.showQuickPick(
        members.map((m) => ({ label: m.email || m.username || `user ${m.id}`, description: m.roles.join(', '), m })),
        { title: vscode.l10n.t('GPU Rental: Remove which team member?') },
      )
    )?.m;
  }
  if (!member) return false;
  const who = member.email || member.username || `user ${member.id}`;
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Remove {0} from the team?', who),
      vscode.l10n.t("They lose access to the team's instances, keys and billing at once. You can invite them again."),
      vscode.l10n.t('Remove'),
    );
  if (!ok) return false;
  await s.session.client.team.removeMember(member.id);
  s.accountView.refresh();
  return true;
}

/** Creates the role, or updates it when one of that name exists; its permissions are picked by category. */
async function saveRole(s: AccountAreaDeps, target: TeamRoleItem | string | undefined, given: string[] | undefined): Promise<boolean> {
  const roles = await s.session.client.team.roles();
  let name = target instanceof TeamRoleItem ? target.role.name : target;
  if (!name) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('$(add) New role…'), value: '' },
        ...roles.map((r) => ({ label: r.name, description: vscode.l10n.t('edit'), value: r.name })),
      ],
      { title: vscode.l10n.t('GPU Rental: Create or edit a team role') },
    );
    if (!picked) return false;
    name =
      picked.value ||
      (
        await vscode.window.showInputBox({
          title: vscode.l10n.t('GPU Rental: New role name'),
          validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('A role needs a name.')),
        })
      )?.trim();
    if (!name) return false;
  }
  const existing: TeamRole | undefined = roles.find((r) => r.name === name);
  const current = Object.keys((existing?.permissions as { api?: Record<string, unknown> } | undefined)?.api ?? {});
  const categories =
    given ??
    (
      await vscode.window.showQuickPick(
        Object.entries(PERMISSION_CATEGORIES).map(([c, what]) => ({ label: c, description: what, picked: current.includes(c) })),
        { title: vscode.l10n.t('GPU Rental: What may "{0}" do?', name), canPickMany: true },
      )
    )?.map((p) => p.label);
  if (!categories) return false;
  const permissions = permissionsFor(categories.filter(isPermissionCategory));
  if (existing?.id !== undefined && existing.id !== null) await s.session.client.team.updateRole(existing.id, name, permissions);
  else await s.session.client.team.createRole(name, permissions);
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    existing ? vscode.l10n.t('GPU Rental: role "{0}" updated.', name) : vscode.l10n.t('GPU Rental: role "{0}" created.', name),
  );
  return true;
}

/** Deletes a role after a confirmation that says who holds it. The owner role is never offered. */
async function deleteRole(s: AccountAreaDeps, target: TeamRoleItem | string | undefined): Promise<boolean> {
  const roles = (await s.session.client.team.roles()).filter((r) => r.name !== 'owner');
  let name = target instanceof TeamRoleItem ? target.role.name : target;
  if (name === undefined) {
    if (roles.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('GPU Rental: the team has no roles besides owner, which cannot be deleted.'));
      return false;
    }
    name = (
      await vscode.window.showQuickPick(
        roles.map((r) => r.name),
        { title: vscode.l10n.t('GPU Rental: Delete which team role?') },
      )
    )?.trim();
    if (!name) return false;
  }
  if (name === 'owner') {
    void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: the owner role cannot be deleted.'));
    return false;
  }
  const holders = (await s.session.client.team.members()).filter((m) => m.roles.includes(name));
  const who = holders.map((m) => m.email || m.username || vscode.l10n.t('user {0}', m.id));
  const detail =
    holders.length === 0
      ? vscode.l10n.t('No team member has this role.')
      : holders.length === 1
        ? vscode.l10n.t('{0} has this role and will lose what it allows. Give them another role first if they still need access.', who[0]!)
        : vscode.l10n.t(
            '{0} have this role and will lose what it allows. Give them another role first if they still need access.',
            who.join(', '),
          );
  if (!(await s.prompts().confirm(vscode.l10n.t('Delete the team role "{0}"?', name), detail, vscode.l10n.t('Delete Role')))) return false;
  await s.session.client.team.deleteRole(name);
  s.accountView.refresh();
  return true;
}
