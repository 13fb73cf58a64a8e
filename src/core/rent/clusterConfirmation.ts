/**
 * THE CLUSTER CONFIRMATION: every node with its $/h (GPU and disk, priced as `quoteRent` prices a
 * single rent), then the total per hour and per day and the credit left after a day. One quote for
 * the modal (title, sentences, button) and for a pick of rows, so the price a user accepts is the
 * same whichever way it is shown. Also the question before a replacement node, with its price.
 */
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import { presentOffer } from '../offers/present';
import { priceRent, type PricedRent } from './flow';
import type { PickItem } from './steps';

/** One node as priced: its offer, and what it costs. */
export interface PricedNode {
  offer: Offer;
  priced: PricedRent;
}

/** What a cluster costs, all nodes together. */
export interface ClusterQuote {
  nodes: PricedNode[];
  totalPerHour: number;
  perDay: number;
  /** Credit left after a day of the whole cluster, when the credit is known. */
  creditAfterDay: number | undefined;
  /** False when the known credit cannot cover one hour of the whole cluster. */
  affordable: boolean;
}

/** Prices every node for `diskGb` of disk each, and adds them up. */
export function clusterQuote(offers: readonly Offer[], diskGb: number, credit: number | undefined): ClusterQuote {
  const nodes = offers.map((offer) => ({ offer, priced: priceRent(offer, diskGb, credit) }));
  const totalPerHour = nodes.reduce((sum, n) => sum + n.priced.quote.totalPerHour, 0);
  const perDay = totalPerHour * 24;
  return {
    nodes,
    totalPerHour,
    perDay,
    creditAfterDay: credit === undefined ? undefined : credit - perDay,
    affordable: credit === undefined || credit >= totalPerHour,
  };
}

/** What the spend cap check says would not happen ("not rented: …"). */
export function clusterCapReason(quote: ClusterQuote): string {
  return l10n.t('rented: a cluster of {0} nodes costs {1}/h in all', quote.nodes.length, formatDollars(quote.totalPerHour));
}

/** The refusal when the known credit cannot cover an hour of the whole cluster. */
export function clusterUnaffordable(quote: ClusterQuote, credit: number): string {
  return l10n.t(
    'GPU Rental: not rented. The {0} nodes cost {1}/h together and the credit left is {2}: not enough for one hour. Add credit, or rent fewer nodes.',
    quote.nodes.length,
    formatDollars(quote.totalPerHour),
    formatDollars(credit),
  );
}

export interface ClusterConfirmationInput {
  quote: ClusterQuote;
  clusterId: number;
  /** The overlay the nodes join. */
  network: string;
  /** GB of disk per node. */
  disk: number;
  credit: number | undefined;
}

export interface ClusterConfirmation {
  title: string;
  detail: string;
  button: string;
  placeholder: string;
  /** The first row rents; the others inform. */
  rows: PickItem<'rent'>[];
}

/** "GPU $1.20/h + disk $0.014/h". */
function split(n: PricedNode): string {
  return l10n.t('GPU {0}/h + disk {1}/h', formatDollars(n.priced.quote.gpuPerHour), formatDollars(n.priced.quote.diskPerHour));
}

/** The confirmation of renting every node of `quote`: one modal, or rows, from the one quote. */
export function clusterConfirmation(input: ClusterConfirmationInput): ClusterConfirmation {
  const { quote } = input;
  const total = formatDollars(quote.totalPerHour);
  const perDay = formatDollars(quote.perDay);
  const credit =
    input.credit === undefined || quote.creditAfterDay === undefined
      ? l10n.t('The credit left is unknown, so this was not checked against it.')
      : l10n.t('Credit after a day: {0} (now {1}).', formatDollars(quote.creditAfterDay), formatDollars(input.credit));
  return {
    title: l10n.t('Rent a cluster of {0} nodes for {1}/h in all?', quote.nodes.length, total),
    detail: sentences(
      ...quote.nodes.map((n, rank) =>
        l10n.t('Node {0}: {1} at {2}/h ({3}).', rank, presentOffer(n.offer).label, formatDollars(n.priced.quote.totalPerHour), split(n)),
      ),
      l10n.t('Total: {0}/h, about {1} per day.', total, perDay),
      credit,
      l10n.t('Each node has {0} GB of disk, billed until it is destroyed.', input.disk),
      l10n.t(
        'The nodes join the private network "{0}" of cluster {1}. If a node fails, GPU Rental asks whether to replace it, keep the others or destroy them.',
        input.network,
        input.clusterId,
      ),
    ),
    button: l10n.t('Rent Cluster'),
    placeholder: l10n.t('Renting starts billing once each node runs. Press Enter to rent, Escape to cancel.'),
    rows: [
      {
        label: l10n.t('$(rocket) Rent {0} nodes for {1}/h', quote.nodes.length, total),
        description: l10n.t('about {0} per day', perDay),
        value: 'rent',
      },
      { label: '', separator: true },
      ...quote.nodes.map((n, rank) => ({
        label: l10n.t('Node {0}: {1}/h', rank, formatDollars(n.priced.quote.totalPerHour)),
        description: l10n.t('{0} · {1}', presentOffer(n.offer).label, split(n)),
      })),
      {
        label:
          input.credit === undefined || quote.creditAfterDay === undefined
            ? l10n.t('Credit: unknown')
            : l10n.t('Credit after a day: {0}', formatDollars(quote.creditAfterDay)),
        description:
          input.credit === undefined
            ? l10n.t('not reported to this key; this rent is not checked against it')
            : l10n.t('now {0}', formatDollars(input.credit)),
      },
      {
        label: l10n.t('$(type-hierarchy) Private network "{0}"', input.network),
        description: l10n.t('cluster {0}; every node joins it at rent', input.clusterId),
      },
    ],
  };
}
