import type { Offer } from '../../api/offers';
import type { GpuPriceStats } from '../../offers/priceContext';
import { rentDiskFor } from '../../offers/search';
import { minBidOf, suggestBid } from '../bid';
import type { ChosenVolume } from '../confirmation';
import type { RentNotice } from '../flow';
import type { LaunchMode } from '../launchMode';
import type { RentPlan } from '../plan';
import type { BACK, CANCEL, StepContext, Steps } from '../steps';
import type { VolumeChoice } from './volume';

/** What the rent wizard is given: the offer, what the account and the workspace know, and readers it calls when needed. */
export interface WizardInput {
  offer: Offer;
  credit: number | undefined;
  recentImages: readonly string[];
  defaultLabel: string;
  /** Text of the active editor, offered as a start-up script. */
  activeEditor?: { name: string; text: string };
  /** The idle stop the settings ask for (0: off); the confirmation can turn it off or on for this rent. */
  idleStopMinutes: number;
  /** Start with this template chosen (Rent With Template); the first step is skipped. */
  template?: string;
  /** Templates rented with before, offered in the first step. */
  recentTemplates?: readonly string[];
  /** The volumes this offer's machine can mount; the confirmation offers them when given. */
  volumeChoices?: () => Promise<VolumeChoice[]>;
  /** Reads a template's own launch mode, for the connection step and the confirmation; undefined when it cannot be read. */
  templateMode?: (hash: string) => Promise<LaunchMode | undefined>;
  /** The disk (GB) the offer's listed price includes: the disk step starts there (see rentDiskFor). */
  searchedDiskGb?: number;
  /** The names of the account's own variables, for the environment step's hint; undefined when they cannot be read. */
  accountSecretNames?: () => Promise<string[] | undefined>;
  /**
   * The offer came from a `type=bid` search: the rent starts as a bid just over the minimum, and
   * the on-demand price is read from `dph_base` (the listed price is the minimum bid).
   */
  bidSearch?: boolean;
  /** Rent Best Match: what happens when this offer is taken (the offers the plan can go to next), a row on the confirmation. */
  failover?: (plan: RentPlan) => { title: string; detail: string };
  /** The going rate of the offer's GPU model: the confirmation compares what the rent pays with it, when known. */
  priceStats?: GpuPriceStats;
  /** Rent Cluster: the plan is for each of this many nodes; the last step goes on to the cluster's confirmation. */
  clusterNodes?: number;
}

/** The wizard's collaborators: how each step is asked, and how a refusal is told. */
export interface WizardPorts {
  steps: Steps;
  /** Shows a notice (the wizard goes on): a start-up script the service would refuse. */
  notify(notice: RentNotice): void;
}

/** Where a step leaves the wizard: the next step, this one again, the one before, or out. */
export type StepMove = 'next' | 'again' | typeof BACK | typeof CANCEL;

/** What the steps share while the wizard runs. */
export interface WizardState {
  readonly input: WizardInput;
  readonly ports: WizardPorts;
  readonly title: string;
  /** The plan as far as it is answered; each step fills its part and finds it there when the user comes back. */
  plan: Partial<RentPlan>;
  /** How the chosen volume reads on the confirmation, and what a new one bills per hour. */
  volume: ChosenVolume | undefined;
  /** The chosen template's launch mode, read once per template. */
  modeOf(hash: string): Promise<LaunchMode | undefined>;
  ctx(step: number): StepContext;
}

export const WIZARD_STEPS = 6;

export function wizardState(input: WizardInput, ports: WizardPorts, title: string): WizardState {
  const { offer } = input;
  const plan: Partial<RentPlan> = {
    disk: rentDiskFor(offer, input.searchedDiskGb),
    label: input.defaultLabel,
    idleStopMinutes: input.idleStopMinutes,
  };
  const minBid = minBidOf(offer);
  if (input.bidSearch && minBid !== undefined) plan.bid = suggestBid(minBid);
  if (input.template) plan.template = input.template;
  let known: { hash: string; mode: LaunchMode | undefined } | undefined;
  return {
    input,
    ports,
    title,
    plan,
    volume: undefined,
    async modeOf(hash) {
      if (known?.hash !== hash) known = { hash, mode: await input.templateMode?.(hash).catch(() => undefined) };
      return known.mode;
    },
    ctx: (step) => ({ title, step, totalSteps: WIZARD_STEPS }),
  };
}
