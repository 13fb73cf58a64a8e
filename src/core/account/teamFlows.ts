/** The team commands as core flows: invite, remove a member, create or edit a role, delete a role. */
import type { PermissionCategory } from '../api/permissions';
import { isPermissionCategory, permissionsFor } from '../api/permissions';
import type { TeamApi, TeamMember } from '../api/team';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import { info, refusal, type Outcome } from './notice';

export interface TeamFlowDeps {
  readonly ask: Ask;
  readonly team: Pick<TeamApi, 'members' | 'invite' | 'removeMember' | 'roles' | 'createRole' | 'updateRole' | 'deleteRole'>;
  /** A pick of several permission categories, the `ticked` ones ticked; undefined when dismissed. */
  readonly pickCategories: (title: string, ticked: readonly string[]) => Promise<string[] | undefined>;
}

const whoIs = (m: TeamMember) => m.email || m.username || l10n.t('user {0}', m.id);

/** Invites a person (email, then role, unless given); resolves true when invited. */
export async function inviteMember(d: TeamFlowDeps, email?: string, role?: string): Promise<Outcome<boolean>> {
  const typed =
    email ??
    (await d.ask.input({
      title: l10n.t('GPU Rental: Invite to the team (1/2)'),
      prompt: l10n.t('Email address of the person to invite'),
      validate: (v) => (/^\S+@\S+\.\S+$/.test(v.trim()) ? undefined : l10n.t('Enter an email address.')),
    }));
  const address = typed?.trim();
  if (!address) return { value: false };
  const roleName =
    role ??
    (await d.ask.pick({
      title: l10n.t('GPU Rental: Invite {0} (2/2): with which role?', address),
      items: (await d.team.roles()).map((r) => ({ label: r.name, value: r.name })),
    }));
  if (!roleName) return { value: false };
  await d.team.invite(address, roleName);
  return { value: true, notice: info(l10n.t('GPU Rental: invited {0} as {1}.', address, roleName)) };
}

/** Removes a member (given, by id, or picked) after a confirmation; resolves true when removed. */
export async function removeMember(d: TeamFlowDeps, given?: TeamMember | number): Promise<Outcome<boolean>> {
  const members = typeof given === 'object' ? [] : await d.team.members();
  const member =
    typeof given === 'object'
      ? given
      : given !== undefined
        ? members.find((m) => m.id === given)
        : await d.ask.pick({
            title: l10n.t('GPU Rental: Remove which team member?'),
            items: members.map((m) => ({ label: whoIs(m), description: m.roles.join(', '), value: m })),
          });
  if (!member) return { value: false };
  const ok = await d.ask.confirm(
    l10n.t('Remove {0} from the team?', whoIs(member)),
    l10n.t("They lose access to the team's instances, keys and billing at once. You can invite them again."),
    l10n.t('Remove'),
  );
  if (!ok) return { value: false };
  await d.team.removeMember(member.id);
  return { value: true };
}

/** The role's name: given, or picked (New role… asks for one); undefined when dismissed. */
async function roleName(d: TeamFlowDeps, roles: ReadonlyArray<{ name: string }>): Promise<string | undefined> {
  const picked = await d.ask.pick({
    title: l10n.t('GPU Rental: Create or edit a team role'),
    items: [
      { label: l10n.t('$(add) New role…'), value: '' },
      ...roles.map((r) => ({ label: r.name, description: l10n.t('edit'), value: r.name })),
    ],
  });
  if (picked === undefined) return undefined;
  if (picked) return picked;
  const typed = await d.ask.input({
    title: l10n.t('GPU Rental: New role name'),
    prompt: l10n.t('A name for the role'),
    validate: (v) => (v.trim() ? undefined : l10n.t('A role needs a name.')),
  });
  return typed?.trim() || undefined;
}

/** Creates the role, or updates it when one of that name exists; its permissions are picked by category unless given. */
export async function saveRole(d: TeamFlowDeps, given?: string, categories?: readonly string[]): Promise<Outcome<boolean>> {
  const roles = await d.team.roles();
  const name = given || (await roleName(d, roles));
  if (!name) return { value: false };
  const existing = roles.find((r) => r.name === name);
  const current = Object.keys((existing?.permissions as { api?: Record<string, unknown> } | undefined)?.api ?? {});
  const chosen = categories ?? (await d.pickCategories(l10n.t('GPU Rental: What may "{0}" do?', name), current));
  if (!chosen) return { value: false };
  const permissions = permissionsFor(chosen.filter((c): c is PermissionCategory => isPermissionCategory(c)));
  if (existing?.id !== undefined && existing.id !== null) await d.team.updateRole(existing.id, name, permissions);
  else await d.team.createRole(name, permissions);
  return {
    value: true,
    notice: info(existing ? l10n.t('GPU Rental: role "{0}" updated.', name) : l10n.t('GPU Rental: role "{0}" created.', name)),
  };
}

/** Deletes a role after a confirmation that says who holds it. The owner role is never offered, nor deleted. */
export async function deleteRole(d: TeamFlowDeps, given?: string): Promise<Outcome<boolean>> {
  if (given === 'owner') return { value: false, notice: refusal(l10n.t('GPU Rental: the owner role cannot be deleted.')) };
  let name = given;
  if (name === undefined) {
    const roles = (await d.team.roles()).filter((r) => r.name !== 'owner');
    if (roles.length === 0)
      return { value: false, notice: info(l10n.t('GPU Rental: the team has no roles besides owner, which cannot be deleted.')) };
    name = await d.ask.pick({
      title: l10n.t('GPU Rental: Delete which team role?'),
      items: roles.map((r) => ({ label: r.name, value: r.name })),
    });
    if (!name) return { value: false };
  }
  const role = name;
  const holders = (await d.team.members()).filter((m) => m.roles.includes(role)).map(whoIs);
  const detail =
    holders.length === 0
      ? l10n.t('No team member has this role.')
      : holders.length === 1
        ? l10n.t('{0} has this role and will lose what it allows. Give them another role first if they still need access.', holders[0]!)
        : l10n.t(
            '{0} have this role and will lose what it allows. Give them another role first if they still need access.',
            holders.join(', '),
          );
  if (!(await d.ask.confirm(l10n.t('Delete the team role "{0}"?', role), detail, l10n.t('Delete Role')))) return { value: false };
  await d.team.deleteRole(role);
  return { value: true };
}
