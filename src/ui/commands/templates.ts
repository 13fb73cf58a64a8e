import * as vscode from 'vscode';
import type { Template, TemplateFields } from '../../core/api/templates';
import { followHash, imageFields, joinImage, templateFromInstance } from '../../core/account/templates';
import { COMMANDS } from '../../core/ids';
import { boxProblem, boxValue, gigabytesBox } from '../../core/numbers';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import type { AccountAreaDeps } from './accountDeps';
import { TemplateItem } from '../views/account/templateItems';
import { command, type CommandDefinition } from './registry';
import { resolveTarget, type Target, type TargetDeps } from './instances';
import type { RentStart } from './rent';

/** What the template commands use. */
export interface TemplateDeps extends AccountAreaDeps, TargetDeps {
  readonly session: Pick<Session, 'client' | 'state'>;
  /** The recent templates the rent flow offers again: they follow a template's edits and deletion. */
  readonly state: Pick<GpuRentalState, 'change'>;
}

/** Templates: save an instance's settings as one, search, edit, delete, rent with one. */
export function templateCommands(s: TemplateDeps): CommandDefinition[] {
  return [
    command(COMMANDS.saveAsTemplate, (t?: Target, name?: string) => saveAsTemplate(s, t, name)),
    command(COMMANDS.searchTemplates, () => searchTemplates(s)),
    command(COMMANDS.editTemplate, (t?: TemplateItem | string, changes?: Partial<TemplateFields>) => editTemplate(s, t, changes)),
    command(COMMANDS.deleteTemplate, (t?: TemplateItem | number) => deleteTemplate(s, t)),
    command(COMMANDS.rentWithTemplate, (t?: TemplateItem | string, offer?: number) => rentWithTemplate(s, t, offer)),
  ];
}

async function saveAsTemplate(s: TemplateDeps, t: Target | undefined, given: string | undefined): Promise<Template | undefined> {
  const instance = await resolveTarget(s, t, vscode.l10n.t('Save the settings of which instance as a template?'), undefined);
  if (!instance) return undefined;
  const name =
    given ??
    (
      await vscode.window.showInputBox({
        title: vscode.l10n.t('GPU Rental: Save as Template'),
        prompt: vscode.l10n.t('Image, start-up script, disk and connection of #{0} become a private template.', instance.id),
        value: instance.label ?? `template-${instance.id}`,
        validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('A template needs a name.')),
      })
    )?.trim();
  if (!name) return undefined;
  const template = await s.session.client.templates.create(templateFromInstance(instance, name));
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'GPU Rental: saved template "{0}" ({1}). Rent with it from the Account view or "Rent With Template".',
      name,
      template.hash_id.slice(0, 8),
    ),
  );
  return template;
}

async function pickTemplate(s: TemplateDeps, title: string, ownOnly: boolean): Promise<Template | undefined> {
  const state = s.session.state;
  const me = state.kind === 'ready' ? state.user?.id : undefined;
  const all = await s.session.client.templates.search();
  const list = ownOnly ? all.filter((t) => me === undefined || t.creator_id === me) : all;
  const picked = await vscode.window.showQuickPick(
    list.map((t) => ({
      label: t.name,
      description: `${t.image ?? ''}${t.tag ? `:${t.tag}` : ''}${t.creator_id === me ? ' · yours' : ''}`,
      detail: t.desc ?? undefined,
      t,
    })),
    { title, matchOnDescription: true, matchOnDetail: true, placeHolder: vscode.l10n.t('Type to filter by name, image or description') },
  );
  return picked?.t;
}

async function searchTemplates(s: TemplateDeps): Promise<void> {
  const t = await pickTemplate(s, vscode.l10n.t('GPU Rental: Templates (public and yours)'), false);
  if (!t) return;
  const choice = await vscode.window.showQuickPick([vscode.l10n.t('Rent With This Template…'), vscode.l10n.t('Copy Hash')], {
    title: vscode.l10n.t('GPU Rental: {0}', t.name),
  });
  if (choice === vscode.l10n.t('Copy Hash')) await vscode.env.clipboard.writeText(t.hash_id);
  if (choice?.startsWith('Rent')) await rentWithTemplate(s, t.hash_id, undefined);
}

async function ownTemplate(s: TemplateDeps, t: TemplateItem | string | number | undefined, title: string): Promise<Template | undefined> {
  if (t instanceof TemplateItem) return t.template;
  if (t !== undefined) return (await s.session.client.templates.search()).find((x) => x.hash_id === t || x.id === t);
  return pickTemplate(s, title, true);
}

/** Edits a template; its hash changes, and the stored references follow. Resolves with the new hash. */
async function editTemplate(
  s: TemplateDeps,
  t: TemplateItem | string | undefined,
  given: Partial<TemplateFields> | undefined,
): Promise<string | undefined> {
  const template = await ownTemplate(s, t, vscode.l10n.t('GPU Rental: Edit which template?'));
  if (!template) return undefined;
  let changes = given;
  if (!changes) {
    const field = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('Image'), value: 'image' as const, current: joinImage(template.image, template.tag) },
        { label: vscode.l10n.t('Start-up script'), value: 'onstart' as const, current: template.onstart ?? '' },
        {
          label: vscode.l10n.t('Disk (GB)'),
          value: 'recommended_disk_space' as const,
          current: String(template.recommended_disk_space ?? ''),
        },
        { label: vscode.l10n.t('Name'), value: 'name' as const, current: template.name },
      ].map((f) => ({ ...f, description: f.current.slice(0, 60) })),
      { title: vscode.l10n.t('GPU Rental: Edit "{0}": which setting?', template.name) },
    );
    if (!field) return undefined;
    const disk = field.value === 'recommended_disk_space' ? gigabytesBox() : undefined;
    const value = await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: {0} of "{1}"', field.label, template.name),
      value: field.current,
      validateInput: disk ? (v) => boxProblem(v, disk) : undefined,
    });
    if (value === undefined) return undefined;
    changes = disk
      ? { recommended_disk_space: boxValue(value, disk) }
      : field.value === 'image'
        ? imageFields(value)
        : { [field.value]: value };
  }
  const edited = await s.session.client.templates.edit(template.hash_id, changes);
  await s.state.change('recentTemplates', (recent) => followHash(recent, template.hash_id, edited.hash_id));
  s.accountView.refresh();
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'GPU Rental: template "{0}" saved; its hash is now {1} (was {2}).',
      template.name,
      edited.hash_id.slice(0, 8),
      template.hash_id.slice(0, 8),
    ),
  );
  return edited.hash_id;
}

async function deleteTemplate(s: TemplateDeps, t: TemplateItem | number | undefined): Promise<boolean> {
  const template = await ownTemplate(s, t, vscode.l10n.t('GPU Rental: Delete which template?'));
  if (!template) return false;
  const ok = await s
    .prompts()
    .confirm(
      vscode.l10n.t('Delete template "{0}"?', template.name),
      vscode.l10n.t('Instances already rented with it keep running; it can no longer be rented with. This cannot be undone.'),
      vscode.l10n.t('Delete Template'),
    );
  if (!ok) return false;
  await s.session.client.templates.delete(template.id);
  await s.state.change('recentTemplates', (recent) => recent.filter((h) => h !== template.hash_id));
  s.accountView.refresh();
  return true;
}

/**
 * Opens the rent flow with the template already chosen (its first step skipped). The template goes
 * to that one rent as an argument, so the next rent starts without it. An offer id (automation)
 * skips the offer pick.
 */
async function rentWithTemplate(s: TemplateDeps, t: TemplateItem | string | undefined, offer: number | undefined): Promise<unknown> {
  const template =
    t instanceof TemplateItem
      ? t.template
      : t
        ? { hash_id: t }
        : await pickTemplate(s, vscode.l10n.t('GPU Rental: Rent with which template?'), false);
  if (!template) return undefined;
  const start: RentStart = { template: template.hash_id };
  return vscode.commands.executeCommand(COMMANDS.rentOffer, offer, undefined, start);
}
