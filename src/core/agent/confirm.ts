/**
 * What VS Code shows before a tool that spends, changes or sends runs (prepareInvocation's
 * confirmation): the numbers first, what it costs per hour, what is lost. It is the first of two
 * questions: the tool then goes through GPU Rental's own confirmation and money guards, as the
 * palette command does. Plain text: VS Code shows it as the confirmation's message.
 */
import type { Instance } from '../api/instances';
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { currentRate, startAddsPerHour } from '../instances/rates';
import { l10n, sentences } from '../l10n';
import { quoteRent } from '../rent/quote';
import { visibleText } from '../text';
import type { BestMatchInput, RentInput, RunJobInput } from './inputs';

/** VS Code's confirmation: a title and a message. */
export interface ToolConfirmation {
  readonly title: string;
  readonly message: string;
}

const ASKS_AGAIN = (): string => l10n.t('GPU Rental then asks you again in its own confirmation before anything happens.');

function gpus(offer: Pick<Offer, 'gpu_name' | 'num_gpus'>): string {
  return `${visibleText(offer.gpu_name)}${offer.num_gpus > 1 ? ` ×${offer.num_gpus}` : ''}`;
}

/** The rent of one offer: its hourly price split into GPU and disk, a day of it, and that it bills until destroyed. */
export function rentOfferConfirmation(offer: Offer, plan: RentInput): ToolConfirmation {
  const quote = quoteRent(offer, plan.disk, undefined);
  return {
    title: l10n.t('Rent offer {0}, {1}, for {2}/h?', offer.id, gpus(offer), formatDollars(quote.totalPerHour)),
    message: sentences(
      l10n.t(
        'It bills {0}/h ({1}/h GPU, {2}/h for {3} GB disk) from now until it is destroyed; a stopped instance still bills its disk.',
        formatDollars(quote.totalPerHour),
        formatDollars(quote.gpuPerHour),
        formatDollars(quote.diskPerHour),
        plan.disk,
      ),
      l10n.t('A day of it costs about {0}.', formatDollars(quote.perDay)),
      l10n.t('Image {0}, label "{1}".', visibleText(plan.image, 120), visibleText(plan.label, 100)),
      ASKS_AGAIN(),
    ),
  };
}

/** Rent Best Match: the offer that leads the search now and its price, and that a taken one leads to the next. */
export function bestMatchConfirmation(best: Offer, plan: BestMatchInput, attempts: number): ToolConfirmation {
  const search = visibleText(plan.query, 200);
  const quote = quoteRent(best, plan.disk, undefined);
  return {
    title: l10n.t(
      'Rent the best match of "{0}": offer {1}, {2}, for {3}/h?',
      search,
      best.id,
      gpus(best),
      formatDollars(quote.totalPerHour),
    ),
    message: sentences(
      l10n.t(
        'It bills {0}/h (with {1} GB disk), about {2} a day, from now until it is destroyed.',
        formatDollars(quote.totalPerHour),
        plan.disk,
        formatDollars(quote.perDay),
      ),
      attempts > 1
        ? l10n.t('If it is taken first, up to {0} next offers of the search are tried, each at its own price.', attempts - 1)
        : undefined,
      l10n.t('Image {0}, label "{1}".', visibleText(plan.image, 120), visibleText(plan.label, 100)),
      ASKS_AGAIN(),
    ),
  };
}

/** Destroy: the disk and its files go for good, and what billing stops. */
export function destroyConfirmation(i: Instance): ToolConfirmation {
  const rate = currentRate(i);
  return {
    title: l10n.t('Destroy {0}?', instanceName(i)),
    message: sentences(
      l10n.t('Its disk and every file on it are deleted for good; this cannot be undone.'),
      rate ? l10n.t('Billing ({0}/h now) stops.', formatDollars(rate)) : l10n.t('Billing stops.'),
      ASKS_AGAIN(),
    ),
  };
}

/** Stop: what stops billing and what keeps billing, and that its processes end. */
export function stopConfirmation(i: Instance): ToolConfirmation {
  const disk = i.storage_total_cost ?? 0;
  return {
    title: l10n.t('Stop {0}?', instanceName(i)),
    message: sentences(
      l10n.t('Every process on it ends; files on its disk are kept.'),
      l10n.t('Billing drops from {0}/h to {1}/h for its disk while it is stopped.', formatDollars(i.dph_total ?? 0), formatDollars(disk)),
      l10n.t('Starting it again later depends on its GPU being free.'),
    ),
  };
}

/** Start: what it bills once running, and what that adds. */
export function startConfirmation(i: Instance): ToolConfirmation {
  return {
    title: l10n.t('Start {0}?', instanceName(i)),
    message: sentences(
      l10n.t(
        'It bills {0}/h once running, {1}/h more than its disk now.',
        formatDollars(i.dph_total ?? 0),
        formatDollars(startAddsPerHour(i)),
      ),
      l10n.t('GPU Rental checks your spend limit before it starts it.'),
    ),
  };
}

/** Upload: which local folder goes where, replacing files of the same name. */
export function uploadConfirmation(i: Instance, folder: string): ToolConfirmation {
  const rate = currentRate(i);
  return {
    title: l10n.t('Upload {0} to {1}?', visibleText(folder, 200), instanceName(i)),
    message: sentences(
      l10n.t("The folder's files are copied to the instance; files of the same name there are replaced."),
      rate ? l10n.t('The instance bills {0}/h meanwhile.', formatDollars(rate)) : undefined,
    ),
  };
}

/** Run a job: the command, what the instance bills while it runs, and what happens at its end. */
export function runJobConfirmation(i: Instance, job: RunJobInput): ToolConfirmation {
  const rate = instancePhase(i) === 'running' ? (i.dph_total ?? 0) : 0;
  const disk = i.storage_total_cost ?? 0;
  return {
    title: l10n.t('Run "{0}" on {1}?', visibleText(job.command, 120), instanceName(i)),
    message: sentences(
      job.uploadFirst ? l10n.t('The workspace folder is uploaded first, and the job runs in its copy.') : undefined,
      l10n.t('The instance bills {0}/h while the job runs.', formatDollars(rate)),
      job.stopAtEnd
        ? l10n.t('When the job ends the instance stops: billing drops to {0}/h for its disk.', formatDollars(disk))
        : l10n.t('When the job ends the instance keeps running and billing {0}/h until it is stopped.', formatDollars(rate)),
    ),
  };
}
