import * as vscode from 'vscode';
import { presentTeamMember, presentTeamRole } from '../../../core/account/present';
import type { TeamMember, TeamRole } from '../../../core/api/team';
import { PresentedItem } from './rows';

/** A member of the team. */
export class TeamMemberItem extends PresentedItem {
  constructor(readonly member: TeamMember) {
    super(presentTeamMember(member), vscode.TreeItemCollapsibleState.None);
  }
}

/** A role members of the team can have. */
export class TeamRoleItem extends PresentedItem {
  constructor(readonly role: TeamRole) {
    super(presentTeamRole(role), vscode.TreeItemCollapsibleState.None);
  }
}
