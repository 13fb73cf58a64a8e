import * as vscode from 'vscode';
import type { Offer } from '../../core/api/offers';
import type { RentNotice } from '../../core/rent/flow';
import { readTemplateMode } from '../../core/rent/launchMode';
import type { RentPlan } from '../../core/rent/plan';
import { rentWizard, type WizardInput } from '../../core/rent/wizard/wizard';
import { volumeChoices } from '../../core/rent/wizard/volume';
import { searchDiskGb } from '../../core/offers/search';
import type { Logger } from '../../core/log';
import type { Renter } from '../../core/rent/renter';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { config } from '../host/config';
import type { OffersView } from '../views/offersView';
import { quickInputSteps } from './steps';

/** What the wizard is opened with: where the account, the workspace and the settings are read. */
export interface WizardSources {
  readonly session: Session;
  readonly renter: Pick<Renter, 'uniqueLabel'>;
  readonly offersView: Pick<OffersView, 'search'>;
  readonly state: Pick<GpuRentalState, 'get'>;
  readonly logger: Logger;
}

/**
 * The rent wizard (src/core/rent/wizard/) on `offer`, in VS Code's quick input, given what the
 * account, the settings and the active editor hold; undefined when cancelled.
 */
export function openRentWizard(
  s: WizardSources,
  offer: Offer,
  credit: number | undefined,
  extra: Partial<WizardInput>,
  notify: (notice: RentNotice) => void,
): Promise<RentPlan | undefined> {
  const machine = offer.machine_id;
  const input: WizardInput = {
    offer,
    credit,
    recentImages: s.state.get('recentImages'),
    defaultLabel: s.renter.uniqueLabel(),
    idleStopMinutes: config.idleStopEnabled() ? config.idleStopMinutes() : 0,
    recentTemplates: s.state.get('recentTemplates'),
    activeEditor: activeEditorText(),
    volumeChoices: machine === undefined || machine === null ? undefined : () => volumeChoices(s.session.client.volumes, offer, s.logger),
    templateMode: (hash) => readTemplateMode(s.session.client.templates, hash, s.logger),
    searchedDiskGb: searchDiskGb(s.offersView.search.query),
    accountSecretNames: () => s.session.client.secrets.list(),
    ...extra,
  };
  return rentWizard(input, { steps: quickInputSteps, notify });
}

/** The active editor's text, offered as a start-up script; undefined when there is none or it is blank. */
function activeEditorText(): { name: string; text: string } | undefined {
  const editor = vscode.window.activeTextEditor;
  const text = editor?.document.getText();
  if (!editor || !text?.trim()) return undefined;
  return { name: editor.document.fileName.split(/[\\/]/).pop() ?? 'editor', text };
}
