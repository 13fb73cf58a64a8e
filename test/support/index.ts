/**
 * The test support kit: one of each thing unit tests, bench scripts and e2e suites share.
 *
 * - `eventually`: polls until a condition holds (the integration suites import eventually.ts itself).
 * - `FakeClock`, `settle`: time moved by hand.
 * - `startSimulator`, `spawnSimulator`: the marketplace simulator, in process or as its CLI.
 * - `DEMO_KEY`, `PUBLIC_KEY`: the keys.
 * - `call`, `control`, `rentOne`, `show`: the simulator over plain HTTP.
 * - `clientFor`, `failure`, `rentableOffers`, `instanceIn`: the extension's API client against it.
 * - `simulatorForSuite`: a simulator started and stopped by a suite's hooks.
 * - `MemoryLogger`: a logger a test can read.
 */
export { clientFor, failure, instanceIn, rentableOffers } from './client';
export { FakeClock, settle } from './clock';
export { eventually } from './eventually';
export { call, control, obj, q, rawRequest, rentOne, show, type Answer, type SimulatorAt } from './http';
export { DEMO_KEY, PUBLIC_KEY } from './keys';
export { MemoryLogger } from './logger';
export { simulatorForSuite, type SuiteSimulator } from './suite';
export { spawnSimulator, startSimulator, type Marketplace, type MarketplaceOptions, type SimulatorProcess } from './simulator';
