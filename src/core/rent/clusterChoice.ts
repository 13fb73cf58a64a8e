/**
 * Rent Cluster from the palette: which cluster. The offers of a search for machines in any cluster
 * are grouped by `cluster_id`; a cluster is offered when it has at least two machines of one GPU
 * model and count (what a node group needs), its largest group described.
 */
import type { Offer } from '../api/offers';
import { formatDollars } from '../format';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import { groupName, nodeGroups, type ClusterOffers } from './clusterPick';

/** The clusters among `offers` that can hold a cluster rent, the ones with the most machines first. */
export function rentableClusters(offers: readonly Offer[]): ClusterOffers[] {
  const byCluster = new Map<number, Offer[]>();
  for (const offer of offers) {
    const id = offer.cluster_id;
    if (typeof id !== 'number') continue;
    byCluster.set(id, [...(byCluster.get(id) ?? []), offer]);
  }
  const usable = [...byCluster].map(([clusterId, list]) => ({ clusterId, offers: list, largest: nodeGroups(list)[0] }));
  return usable
    .filter((c) => (c.largest?.offers.length ?? 0) >= 2)
    .sort((a, b) => b.largest!.offers.length - a.largest!.offers.length || a.clusterId - b.clusterId)
    .map(({ clusterId, offers: list }) => ({ clusterId, offers: list }));
}

/** Asks which cluster; a refusal (a whole sentence) when none can hold a cluster rent, undefined when dismissed. */
export async function pickCluster(
  ask: Pick<Ask, 'pick'>,
  offers: readonly Offer[],
): Promise<ClusterOffers | { refusal: string } | undefined> {
  const clusters = rentableClusters(offers);
  if (clusters.length === 0)
    return {
      refusal: l10n.t(
        'GPU Rental: no cluster with two or more free machines of one GPU model matches the search. Search with cluster_id!=null and fewer filters, or try again later.',
      ),
    };
  return ask.pick({
    title: l10n.t('GPU Rental: Rent which cluster?'),
    placeholder: l10n.t('Machines of one cluster share a fast private network'),
    items: clusters.map((cluster) => {
      const group = nodeGroups(cluster.offers)[0]!;
      return {
        label: l10n.t('Cluster {0}', cluster.clusterId),
        description: l10n.t(
          '{0} machines of {1}, from {2}/h each',
          group.offers.length,
          groupName(group),
          formatDollars(group.offers[0]!.dph_total),
        ),
        value: cluster,
      };
    }),
  });
}
