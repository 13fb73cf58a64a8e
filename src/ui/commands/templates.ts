import * as vscode from 'vscode';
import type { TemplateFields } from '../../core/api/templates';
import {
  deleteTemplate,
  editTemplate,
  saveAsTemplate,
  searchTemplates,
  templateToRent,
  type TemplateFlowDeps,
} from '../../core/account/templateFlows';
import { followHash } from '../../core/account/templates';
import { COMMANDS } from '../../core/ids';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { asker, type PickPrompt } from '../pickers/prompts';
import { TemplateItem } from '../views/account/templateItems';
import { shownWith, type AccountAreaDeps } from './accountDeps';
import { resolveTarget, type Target, type TargetDeps } from './instances';
import { command, type CommandDefinition } from '../registry';
import type { RentStart } from './rent';

/** What the template commands use. */
export interface TemplateDeps extends AccountAreaDeps, TargetDeps {
  readonly session: Pick<Session, 'client' | 'state'>;
  /** The recent templates the rent flow offers again: they follow a template's edits and deletion. */
  readonly state: Pick<GpuRentalState, 'change'>;
}

/** Templates: save an instance's settings as one, search, edit, delete, rent with one (decided in core/account/templateFlows.ts). */
export function templateCommands(s: TemplateDeps): CommandDefinition[] {
  const deps = (): TemplateFlowDeps => ({
    ask: asker(s.prompts()),
    templates: s.session.client.templates,
    searchPick,
    me: () => (s.session.state.kind === 'ready' ? s.session.state.user?.id : undefined),
    recent: {
      follow: async (oldHash, newHash) => void (await s.state.change('recentTemplates', (recent) => followHash(recent, oldHash, newHash))),
      forget: async (hash) => void (await s.state.change('recentTemplates', (recent) => recent.filter((h) => h !== hash))),
    },
  });
  const shown = shownWith(s);
  const byHash = (t?: TemplateItem | string) => (t instanceof TemplateItem ? t.template : t);
  const byId = (t?: TemplateItem | number) => (t instanceof TemplateItem ? t.template : t);
  const rentWith = async (t: TemplateItem | string | undefined, offer: number | undefined): Promise<unknown> => {
    const hash = await templateToRent(deps(), byHash(t));
    if (!hash) return undefined;
    // The template goes to that one rent as an argument, so the next rent starts without it.
    const start: RentStart = { template: hash };
    return vscode.commands.executeCommand(COMMANDS.rentOffer, offer, undefined, start);
  };
  return [
    command(COMMANDS.saveAsTemplate, async (t?: Target, name?: string) => {
      const instance = await resolveTarget(s, t, vscode.l10n.t('Save the settings of which instance as a template?'), undefined);
      return instance && shown(saveAsTemplate(deps(), instance, name));
    }),
    command(COMMANDS.searchTemplates, async () => {
      const found = await searchTemplates(deps());
      if (found?.then === 'copy') await vscode.env.clipboard.writeText(found.template.hash_id);
      if (found?.then === 'rent') await rentWith(found.template.hash_id, undefined);
    }),
    command(COMMANDS.editTemplate, (t?: TemplateItem | string, changes?: Partial<TemplateFields>) =>
      shown(editTemplate(deps(), byHash(t), changes)),
    ),
    command(COMMANDS.deleteTemplate, (t?: TemplateItem | number) => shown(deleteTemplate(deps(), byId(t)))),
    command(COMMANDS.rentWithTemplate, (t?: TemplateItem | string, offer?: number) => rentWith(t, offer)),
  ];
}

/** A quick pick that filters on the rows' descriptions and details too (the port's filters on labels). */
async function searchPick<T>(options: PickPrompt<T>): Promise<T | undefined> {
  const picked = await vscode.window.showQuickPick(options.items, {
    title: options.title,
    placeHolder: options.placeholder,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.value;
}
