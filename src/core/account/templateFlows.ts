/**
 * The template commands as core flows: save an instance's settings as a template, search, edit one
 * setting (its hash changes, and the stored references follow), delete after a confirmation, and
 * which template a rent starts with.
 */
import type { Instance } from '../api/instances';
import type { Template, TemplateFields, TemplatesApi } from '../api/templates';
import { l10n } from '../l10n';
import { boxProblem, boxValue, gigabytesBox } from '../numbers';
import type { Ask, PickPrompt } from '../prompts';
import { info, type Outcome } from './notice';
import { imageFields, joinImage, templateFromInstance } from './templates';

export interface TemplateFlowDeps {
  readonly ask: Ask;
  readonly templates: Pick<TemplatesApi, 'search' | 'create' | 'edit' | 'delete'>;
  /** A pick that filters on the rows' descriptions and details too (image, description). */
  readonly searchPick: <T>(options: PickPrompt<T>) => Promise<T | undefined>;
  /** The signed-in user's id, when known: their templates are "yours". */
  readonly me: () => number | undefined;
  /** The stored recent templates the rent flow offers again: they follow an edit, and forget a deleted one. */
  readonly recent: { follow(oldHash: string, newHash: string): Promise<void>; forget(hash: string): Promise<void> };
}

/** Saves an instance's image, start-up script (without the watchdog), disk and connection as a private template. */
export async function saveAsTemplate(d: TemplateFlowDeps, instance: Instance, given?: string): Promise<Outcome<Template | undefined>> {
  const typed =
    given ??
    (await d.ask.input({
      title: l10n.t('GPU Rental: Save as Template'),
      prompt: l10n.t('Image, start-up script, disk and connection of #{0} become a private template.', instance.id),
      value: instance.label ?? `template-${instance.id}`,
      validate: (v) => (v.trim() ? undefined : l10n.t('A template needs a name.')),
    }));
  const name = typed?.trim();
  if (!name) return { value: undefined };
  const template = await d.templates.create(templateFromInstance(instance, name));
  return {
    value: template,
    notice: info(
      l10n.t(
        'GPU Rental: saved template "{0}" ({1}). Rent with it from the Account view or "Rent With Template".',
        name,
        template.hash_id.slice(0, 8),
      ),
    ),
  };
}

/** Picks a template: public ones and the user's, or the user's own only. */
async function pickTemplate(d: TemplateFlowDeps, title: string, ownOnly: boolean): Promise<Template | undefined> {
  const me = d.me();
  const all = await d.templates.search();
  const list = ownOnly ? all.filter((t) => me === undefined || t.creator_id === me) : all;
  return d.searchPick({
    title,
    placeholder: l10n.t('Type to filter by name, image or description'),
    items: list.map((t) => ({
      label: t.name,
      description: `${t.image ?? ''}${t.tag ? `:${t.tag}` : ''}${t.creator_id === me ? ' · yours' : ''}`,
      detail: t.desc ?? undefined,
      value: t,
    })),
  });
}

/** What to do with a template found by a search. */
export type FoundTemplate = { template: Template; then: 'rent' | 'copy' };

/** Searches the templates, then asks what to do with the one picked: rent with it, or copy its hash. */
export async function searchTemplates(d: TemplateFlowDeps): Promise<FoundTemplate | undefined> {
  const template = await pickTemplate(d, l10n.t('GPU Rental: Templates (public and yours)'), false);
  if (!template) return undefined;
  const then = await d.ask.pick({
    title: l10n.t('GPU Rental: {0}', template.name),
    items: [
      { label: l10n.t('Rent With This Template…'), value: 'rent' as const },
      { label: l10n.t('Copy Hash'), value: 'copy' as const },
    ],
  });
  return then && { template, then };
}

/** The template given (a row's), by hash or id, or picked from the user's own. */
async function ownTemplate(
  d: TemplateFlowDeps,
  given: Template | string | number | undefined,
  title: string,
): Promise<Template | undefined> {
  if (typeof given === 'object') return given;
  if (given !== undefined) return (await d.templates.search()).find((x) => x.hash_id === given || x.id === given);
  return pickTemplate(d, title, true);
}

/** Asks which setting to change and its new value; undefined when cancelled. */
async function askChange(ask: Ask, template: Template): Promise<Partial<TemplateFields> | undefined> {
  const fields = [
    { label: l10n.t('Image'), value: 'image' as const, current: joinImage(template.image, template.tag) },
    { label: l10n.t('Start-up script'), value: 'onstart' as const, current: template.onstart ?? '' },
    { label: l10n.t('Disk (GB)'), value: 'recommended_disk_space' as const, current: String(template.recommended_disk_space ?? '') },
    { label: l10n.t('Name'), value: 'name' as const, current: template.name },
  ];
  const field = await ask.pick({
    title: l10n.t('GPU Rental: Edit "{0}": which setting?', template.name),
    items: fields.map((f) => ({ label: f.label, description: f.current.slice(0, 60), value: f })),
  });
  if (!field) return undefined;
  const disk = field.value === 'recommended_disk_space' ? gigabytesBox() : undefined;
  const value = await ask.input({
    title: l10n.t('GPU Rental: {0} of "{1}"', field.label, template.name),
    prompt: '',
    value: field.current,
    validate: disk ? (v) => boxProblem(v, disk) : undefined,
  });
  if (value === undefined || (disk && boxProblem(value, disk))) return undefined;
  if (disk) return { recommended_disk_space: boxValue(value, disk) };
  return field.value === 'image' ? imageFields(value) : { [field.value]: value };
}

/** Edits one of the user's templates; its hash changes, and the stored references follow. Resolves with the new hash. */
export async function editTemplate(
  d: TemplateFlowDeps,
  given?: Template | string,
  changes?: Partial<TemplateFields>,
): Promise<Outcome<string | undefined>> {
  const template = await ownTemplate(d, given, l10n.t('GPU Rental: Edit which template?'));
  if (!template) return { value: undefined };
  const chosen = changes ?? (await askChange(d.ask, template));
  if (!chosen) return { value: undefined };
  const edited = await d.templates.edit(template.hash_id, chosen);
  await d.recent.follow(template.hash_id, edited.hash_id);
  return {
    value: edited.hash_id,
    notice: info(
      l10n.t(
        'GPU Rental: template "{0}" saved; its hash is now {1} (was {2}).',
        template.name,
        edited.hash_id.slice(0, 8),
        template.hash_id.slice(0, 8),
      ),
    ),
  };
}

/** Deletes one of the user's templates after a confirmation; the stored references forget it. Resolves true when deleted. */
export async function deleteTemplate(d: TemplateFlowDeps, given?: Template | number): Promise<Outcome<boolean>> {
  const template = await ownTemplate(d, given, l10n.t('GPU Rental: Delete which template?'));
  if (!template) return { value: false };
  const ok = await d.ask.confirm(
    l10n.t('Delete template "{0}"?', template.name),
    l10n.t('Instances already rented with it keep running; it can no longer be rented with. This cannot be undone.'),
    l10n.t('Delete Template'),
  );
  if (!ok) return { value: false };
  await d.templates.delete(template.id);
  await d.recent.forget(template.hash_id);
  return { value: true };
}

/** The hash a rent starts with: the one given, or a template picked from all. */
export async function templateToRent(d: TemplateFlowDeps, given?: Pick<Template, 'hash_id'> | string): Promise<string | undefined> {
  if (given) return typeof given === 'string' ? given : given.hash_id;
  return (await pickTemplate(d, l10n.t('GPU Rental: Rent with which template?'), false))?.hash_id;
}
