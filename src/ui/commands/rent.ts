import * as vscode from 'vscode';
import { creditOf } from '../../core/api/account';
import type { Offer } from '../../core/api/offers';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { Logger } from '../../core/log';
import { presentOffer } from '../../core/offers/present';
import { searchDiskGb, searchRequest } from '../../core/offers/search';
import { quoteRent } from '../../core/rent/quote';
import { describeLaunch, rentRuntype, templateLaunchMode, type LaunchMode } from '../../core/rent/launchMode';
import { rentOutcomeMessage } from '../../core/rent/messages';
import type { Renter } from '../../core/rent/renter';
import type { Session } from '../../core/session/session';
import type { StoredState } from '../../core/state/storedState';
import type { BootStatus } from '../bootStatus';
import type { PendingRents } from '../pendingRents';
import type { Prompts } from '../prompts';
import type { SpendGuard } from '../spendGuard';
import { rentWizard, type RentPlan, type VolumeChoice } from '../rent/wizard';
import { OfferItem, type OffersView } from '../views/offersView';
import { config } from '../config';
import { OnstartTooLong, withWatchdog } from '../../core/idle/watchdog';
import { formatDollars } from '../../core/format';
import { command, type CommandDefinition } from './registry';

/** What the rent command uses. */
export interface RentDeps {
  readonly session: Session;
  readonly renter: Renter;
  readonly poller: InstancePoller;
  readonly boots: BootStatus;
  readonly spend: SpendGuard;
  readonly pendingRents: PendingRents;
  readonly offersView: OffersView;
  /** Where the recent images and templates are kept. */
  readonly state: Pick<StoredState, 'get' | 'change'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
  /** The "GPU Rental" channel, for Show Logs. */
  readonly log: { show(): void };
}

/**
 * How a rent starts, for this one call only: Rent With Template passes the template it chose, and
 * the next rent starts without one.
 */
export interface RentStart {
  readonly template?: string;
}

function isRentStart(value: unknown): value is RentStart {
  return typeof value === 'object' && value !== null && typeof (value as RentStart).template === 'string';
}

/** Rent an offer: from the offers view, an offer id (automation), Rent With Template, or the palette. */
export function rentCommands(deps: RentDeps): CommandDefinition[] {
  let wizardOpen = false;
  return [
    command(COMMANDS.rentOffer, async (target?: OfferItem | number, plan?: RentPlan, start?: unknown) => {
      // One rent at a time: a second click while the first is being asked for or sent does nothing but say so.
      if (wizardOpen || deps.renter.busy) {
        void vscode.window.showInformationMessage('GPU Rental: a rent is already in progress. Wait for it to finish.');
        return undefined;
      }
      wizardOpen = true;
      try {
        return await rentOffer(deps, target, plan, isRentStart(start) ? start.template : undefined);
      } finally {
        wizardOpen = false;
      }
    }),
  ];
}

/** Resolves with the new instance id, or undefined when nothing was rented. */
async function rentOffer(
  s: RentDeps,
  target: OfferItem | number | undefined,
  given: RentPlan | undefined,
  preset: string | undefined,
): Promise<number | undefined> {
  // An earlier rent whose outcome is not known yet: renting again could rent twice.
  const bound = s.session.bound();
  const pending = bound ? s.renter.journal.for(bound.baseUrl, bound.profileId) : [];
  if (pending.length > 0) {
    void vscode.window.showWarningMessage(`GPU Rental: ${rentOutcomeMessage({ kind: 'unsettled', pending })}`);
    return undefined;
  }
  const offer = await resolveOffer(s, target);
  if (!offer) return undefined;
  await s.session.refresh();
  const state = s.session.state;
  // Unknown (a record without credit, or a key that may not read the account) stays unknown: the
  // rent is not checked against it, and the confirmation says so.
  const credit = state.kind === 'ready' ? creditOf(state.user) : undefined;

  let plan = given;
  if (!plan) {
    const editor = vscode.window.activeTextEditor;
    plan = await rentWizard({
      offer,
      credit,
      recentImages: recentImages(s),
      defaultLabel: s.renter.uniqueLabel(),
      idleStopMinutes: config.idleStopEnabled() ? config.idleStopMinutes() : 0,
      template: preset,
      recentTemplates: recentTemplates(s),
      activeEditor:
        editor && editor.document.getText().trim()
          ? { name: editor.document.fileName.split(/[\\/]/).pop() ?? 'editor', text: editor.document.getText() }
          : undefined,
      volumeChoices: offer.machine_id === undefined || offer.machine_id === null ? undefined : () => volumeChoices(s, offer),
      templateMode: (hash) => templateMode(s, hash),
      searchedDiskGb: searchDiskGb(s.offersView.search.query),
    });
    if (!plan) return undefined;
  }

  const quote = quoteRent(offer, plan.disk, credit);
  if (!quote.affordable) {
    void vscode.window.showErrorMessage(
      `GPU Rental: not rented. This machine costs ${formatDollars(quote.totalPerHour)}/h and the credit left is ${formatDollars(credit ?? 0)}: not enough for one hour. Add credit, or pick a cheaper offer.`,
    );
    return undefined;
  }
  if (
    !(await s.spend.allows(
      s.poller,
      quote.totalPerHour,
      `rented: ${presentOffer(offer).label} costs ${formatDollars(quote.totalPerHour)}/h`,
    ))
  )
    return undefined;
  if (given) {
    // Automation skips the wizard, not the price: the confirmation still shows it.
    const volume = plan.volume
      ? ` With ${plan.volume.create_new ? `a new ${plan.volume.size ?? ''} GB volume (billed until deleted)` : `volume ${plan.volume.volume_id}`} at ${plan.volume.mount_path}.`
      : '';
    const launch = plan.template ? ` Template ${plan.template}: ${describeLaunch(plan, await templateMode(s, plan.template))}.` : '';
    const ok = await s
      .prompts()
      .confirm(
        `Rent ${presentOffer(offer).label} for ${formatDollars(quote.totalPerHour)}/h?`,
        `GPU ${formatDollars(quote.gpuPerHour)}/h + disk ${formatDollars(quote.diskPerHour)}/h (${plan.disk} GB). About ${formatDollars(quote.perDay)} per day.${volume}${launch}${credit === undefined ? ' The credit left is unknown, so this was not checked against it.' : ''}`,
        'Rent',
      );
    if (!ok) return undefined;
  }

  // The idle watchdog goes in front of the user's own start-up script (never instead of it).
  const idleMinutes = plan.idleStopMinutes ?? (config.idleStopEnabled() ? config.idleStopMinutes() : 0);
  let onstart = plan.onstart;
  if (idleMinutes > 0 && !plan.template) {
    try {
      onstart = withWatchdog(plan.onstart, {
        baseUrl: s.session.normalizedBaseUrl ?? s.session.baseUrl,
        idleMinutes,
        gpuThreshold: config.idleGpuThreshold(),
      });
    } catch (error) {
      if (!(error instanceof OnstartTooLong)) throw error;
      void vscode.window.showErrorMessage(`GPU Rental: not rented. ${error.message}`);
      return undefined;
    }
  }
  const account = s.session.bound();
  if (!account) {
    void vscode.window
      .showErrorMessage('GPU Rental: not rented: no API key is set for this service. Set one and try again.', 'Set API Key')
      .then((c) => {
        if (c) void vscode.commands.executeCommand(COMMANDS.setApiKey);
      });
    return undefined;
  }
  const description = presentOffer(offer).label;
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `GPU Rental: renting ${description}…` },
    () =>
      s.renter.rent(
        account,
        offer,
        {
          image: plan.image,
          template_hash_id: plan.template,
          disk: plan.disk,
          // With a template, none unless the user chose one: a runtype sent replaces the template's mode.
          runtype: rentRuntype(plan),
          label: plan.label,
          onstart,
          volume_info: plan.volume,
        },
        { description, perHour: quote.totalPerHour },
      ),
  );
  switch (outcome.kind) {
    case 'busy':
    case 'unsettled':
    case 'refused':
      void vscode.window.showErrorMessage(`GPU Rental: ${rentOutcomeMessage(outcome)}`, 'Show Logs').then((choice) => {
        if (choice) s.log.show();
      });
      return undefined;
    case 'unavailable':
      // Not awaited: the command finishes now, the button works whenever it is clicked.
      void vscode.window.showWarningMessage(`GPU Rental: ${rentOutcomeMessage(outcome)}`, 'Refresh Offers').then((choice) => {
        if (choice) s.offersView.refresh();
      });
      return undefined;
    case 'uncertain':
      // The status bar shows the check; its outcome is announced when known (PendingRents).
      s.pendingRents.update();
      void vscode.window.showWarningMessage(`GPU Rental: ${rentOutcomeMessage(outcome)}`, 'Show Logs').then((choice) => {
        if (choice) s.log.show();
      });
      return undefined;
    case 'created': {
      s.boots.track(outcome.instanceId);
      if (plan.image) await rememberImage(s, plan.image);
      if (plan.template) await rememberTemplate(s, plan.template);
      s.offersView.refresh();
      await s.poller.refresh();
      const id = outcome.instanceId;
      // "Open When Ready" waits for the boot and the SSH banner, then hands over to Remote-SSH.
      void vscode.window
        .showInformationMessage(
          `GPU Rental: rented "${plan.label}" as instance #${id}. It bills ${formatDollars(quote.totalPerHour)}/h; watch it boot in the status bar.`,
          'Open When Ready',
        )
        .then((choice) => {
          if (choice) void vscode.commands.executeCommand(COMMANDS.connect, id);
        });
      return outcome.instanceId;
    }
  }
}

/**
 * Volumes a rent on this offer can mount: the account's free volumes on the same machine, and new
 * ones from the machine's volume offers. A key that may not read volumes just gets none.
 */
async function volumeChoices(s: RentDeps, offer: Offer): Promise<VolumeChoice[]> {
  const client = s.session.client;
  const quiet = <T>(what: string, p: Promise<T[]>) =>
    p.catch((error: unknown) => {
      s.logger.warn(`Could not read ${what} for the rent: ${String(error)}`);
      return [] as T[];
    });
  const [mine, offers] = await Promise.all([
    quiet('your volumes', client.volumes.list()),
    quiet(
      'volume offers',
      client.volumes.search({ filters: { machine_id: { eq: offer.machine_id! } }, order: [['storage_cost', 'asc']], limit: 3 }),
    ),
  ]);
  const existing: VolumeChoice[] = mine
    .filter((v) => v.machine_id === offer.machine_id && !v.instances?.length)
    .map((v) => ({
      label: `$(database) ${v.label || `V.${v.id}`}`,
      description: `yours, ${v.disk_space ?? '?'} GB, free`,
      volumeId: v.id,
    }));
  const fresh: VolumeChoice[] = offers
    .filter((o) => o.machine_id === offer.machine_id)
    .map((o) => ({
      label: '$(add) New volume on this machine…',
      description: `up to ${Math.floor(o.disk_space)} GB at ${formatDollars(o.storage_cost ?? 0)}/GB/month`,
      volumeId: o.id,
      offer: { maxGb: Math.floor(o.disk_space), costPerGbMonth: o.storage_cost ?? 0 },
    }));
  return [...existing, ...fresh];
}

async function resolveOffer(s: RentDeps, target: OfferItem | number | undefined): Promise<Offer | undefined> {
  if (target instanceof OfferItem) return target.offer;
  if (typeof target === 'number') {
    const known = s.offersView.offers.find((o) => o.id === target);
    if (known) return known;
    const [found] = await s.session.client.offers.search({
      query: { filters: { id: { eq: target } }, order: [], type: 'on-demand' },
      limit: 1,
    });
    if (!found) void vscode.window.showWarningMessage(`GPU Rental: offer ${target} is not available any more.`);
    return found;
  }
  const offers = s.offersView.offers.length
    ? s.offersView.offers
    : await s.session.client.offers.search(searchRequest(s.offersView.search));
  const picked = await vscode.window.showQuickPick(
    offers.map((offer) => ({ ...presentOffer(offer), offer })),
    { title: 'GPU Rental: Rent which offer?', placeHolder: 'Pick an offer (the current search)', matchOnDescription: true },
  );
  return picked?.offer;
}

/** A template's own launch mode, read from the template search; undefined (and logged) when it cannot be read. */
async function templateMode(s: RentDeps, hash: string): Promise<LaunchMode | undefined> {
  try {
    const found = await s.session.client.templates.search({ selectFilters: { hash_id: { eq: hash } } });
    const template = found.find((t) => t.hash_id === hash);
    if (!template) s.logger.warn(`Template ${hash} was not among the templates this key can read; its launch mode is not known.`);
    return template && templateLaunchMode(template);
  } catch (error) {
    s.logger.warn(`Could not read template ${hash} for its launch mode: ${String(error)}`);
    return undefined;
  }
}

/** Images the rent wizard offers again, most recent first. */
function recentImages(s: RentDeps): string[] {
  return s.state.get('recentImages');
}

/** Template hashes the rent wizard offers again, most recent first. */
function recentTemplates(s: RentDeps): string[] {
  return s.state.get('recentTemplates');
}

async function rememberTemplate(s: RentDeps, hash: string): Promise<void> {
  await s.state.change('recentTemplates', (recent) => [hash, ...recent.filter((h) => h !== hash)].slice(0, 5));
}

async function rememberImage(s: RentDeps, image: string): Promise<void> {
  await s.state.change('recentImages', (recent) => [image, ...recent.filter((i) => i !== image)].slice(0, 5));
}
