/**
 * The account size the extension is built and measured for (ARCHITECTURE.md, "Scale"): the
 * benchmarks measure these sizes, and tuning stops once they meet their targets there.
 */
export const SCALE = {
  /** Instances of one account: one poll tick <= 100 ms of the extension's CPU, <= 20 MB kept (test/bench/scale.bench.ts). */
  instances: 5_000,
  /** Of those instances, clusters on overlay networks (2 to 4 nodes each) in the same bench. */
  clusters: 50,
  /** Nodes of one cluster rented, run on and uploaded to at once: test/bench/cluster.bench.ts (4 against 1). */
  clusterNodes: 4,
  /** Offers in one search or the Offer Explorer (ten pages of 1,000): test/bench/search.bench.ts, explorer.bench.ts. */
  offers: 10_000,
  /** Remembered jobs whose rows the Instances tree shows, twice the 50 a workspace keeps: scale.bench.ts. */
  jobs: 100,
  /** Watched saved searches, the most that can be saved: one search request per interval whatever their number (watch.bench.ts). */
  savedSearches: 50,
} as const;

/**
 * The least records the last instance list held for the next one to be read in part
 * (api/listReuse.ts). Below it one `JSON.parse` of the whole body costs under 1 ms (1% of a poll
 * tick's budget at SCALE.instances) and the reuse would save well under a millisecond, so nothing
 * is kept between polls (scale.bench.ts prints both at several sizes).
 */
export const LIST_REUSE_MIN_RECORDS = 50;
