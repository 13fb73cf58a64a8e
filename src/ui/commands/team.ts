import * as vscode from 'vscode';
import { PERMISSION_CATEGORIES } from '../../core/api/permissions';
import { deleteRole, inviteMember, removeMember, saveRole, type TeamFlowDeps } from '../../core/account/teamFlows';
import { COMMANDS } from '../../core/ids';
import { asker } from '../pickers/prompts';
import { TeamMemberItem, TeamRoleItem } from '../views/account/teamItems';
import { shownWith, type AccountAreaDeps } from './accountDeps';
import { command, type CommandDefinition } from '../registry';

/** Team members and roles: invite, remove (confirmed), create or update a role, delete one (confirmed); decided in core/account/teamFlows.ts. */
export function teamCommands(s: AccountAreaDeps): CommandDefinition[] {
  const deps = (): TeamFlowDeps => ({ ask: asker(s.prompts()), team: s.session.client.team, pickCategories });
  const shown = shownWith(s);
  const role = (t?: TeamRoleItem | string) => (t instanceof TeamRoleItem ? t.role.name : t);
  return [
    command(COMMANDS.inviteTeamMember, (email?: string, r?: string) => shown(inviteMember(deps(), email, r))),
    command(COMMANDS.removeTeamMember, (t?: TeamMemberItem | number) =>
      shown(removeMember(deps(), t instanceof TeamMemberItem ? t.member : t)),
    ),
    command(COMMANDS.saveTeamRole, (t?: TeamRoleItem | string, categories?: string[]) => shown(saveRole(deps(), role(t), categories))),
    command(COMMANDS.deleteTeamRole, (t?: TeamRoleItem | string) => shown(deleteRole(deps(), role(t)))),
  ];
}

/** The permission categories in a pick of several (the port asks for one). */
async function pickCategories(title: string, ticked: readonly string[]): Promise<string[] | undefined> {
  const picked = await vscode.window.showQuickPick(
    Object.entries(PERMISSION_CATEGORIES).map(([c, what]) => ({ label: c, description: what, picked: ticked.includes(c) })),
    { title, canPickMany: true },
  );
  return picked?.map((p) => p.label);
}
