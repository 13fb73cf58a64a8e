/**
 * The test support kit: one of each thing unit tests, bench scripts and e2e suites share.
 *
 * - `eventually`: polls until a condition holds (the integration suites import eventually.ts itself).
 * - `FakeClock`, `settle`: time moved by hand.
 * - `startSimulator`, `spawnSimulator`: the marketplace simulator, in process or as its CLI.
 * - `DEMO_KEY`, `PUBLIC_KEY`: the keys.
 * - `call`, `control`, `rentOne`, `show`: the simulator over plain HTTP.
 * - `clientFor`, `failure`, `rentableOffers`, `instanceIn`: the extension's API client against it;
 *   `mockedApi`: the client and transport against scripted answers instead.
 * - `simulatorForSuite`, `tempDirForSuite`: a simulator or a temporary folder made and removed by a suite's hooks.
 * - `MemoryLogger`: a logger a test can read.
 * - `priceableOffer`: an offer whose prices are easy to check by hand.
 * - `sshdGone`: waits until an instance's sshd has stopped.
 * - `listPoller`: an instance poller over a list the test changes, on a fake clock.
 * - `sshBench`: the frame of a bench script that needs instances with a real sshd.
 * - `reachableInstance`, `testSshOptions`: how ssh reaches a running instance with a test's own key.
 * - `containerPath`, `containersIsolated`, `processesWith`: an instance's container files on this machine, whether it is
 *   isolated, and how many of its processes run.
 * - `containerSuite`: a suite's simulator with containers, its own SSH key on the account, and `rent` for a reachable instance.
 */
export { clientFor, failure, instanceIn, mockedApi, rentableOffers } from './client';
export { FakeClock, settle } from './clock';
export { priceableOffer } from './fixtures';
export { eventually } from './eventually';
export { call, control, obj, q, rawRequest, rentBid, rentOne, show, type Answer, type SimulatorAt } from './http';
export { DEMO_KEY, PUBLIC_KEY } from './keys';
export { MemoryLogger } from './logger';
export { simulatorForSuite, tempDirForSuite, type SuiteSimulator } from './suite';
export { sshdGone } from './sshd';
export { listPoller } from './poller';
export { sshBench } from './bench';
export { reachableInstance, testSshOptions } from './sshTarget';
export { containerPath, containersIsolated, processesWith } from './container';
export { containerSuite, type ContainerInstance, type ContainerSuite } from './containerSuite';
export { spawnSimulator, startSimulator, type Marketplace, type MarketplaceOptions, type SimulatorProcess } from './simulator';
