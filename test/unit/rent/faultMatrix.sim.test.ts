import assert from 'node:assert/strict';
import type { GpuRentalClient } from '../../../src/core/api/client';
import type { Instance } from '../../../src/core/api/instances';
import { destroyInstance, stopInstance } from '../../../src/core/instances/actions';
import { instancePhase } from '../../../src/core/instances/phase';
import { InstancePoller } from '../../../src/core/instances/poller';
import { presentInstance } from '../../../src/core/instances/present';
import { rentOutcomeMessage, settlementMessage } from '../../../src/core/rent/messages';
import type { FaultRuleInput } from '../../../test/marketplace/faults';
import { clientFor, DEMO_KEY, eventually, MemoryLogger, startSimulator, type Marketplace } from '../../support';
import { accountAt, nextSettlement, renterFor } from './kit';

/**
 * Every fault the simulator injects, before the service acts and after it acted, against every
 * operation that touches money: 0 duplicate rents, 0 instances the user is not shown, and a
 * message that tells the truth. The matrix is printed at the end.
 */
type Operation = 'search' | 'rent' | 'poll' | 'stop' | 'destroy';
const OPERATIONS: Operation[] = ['search', 'rent', 'poll', 'stop', 'destroy'];

interface FaultCase {
  name: string;
  phase: 'before' | 'after' | 'boot';
  rule: (path: string, method: string) => FaultRuleInput;
}

const TIMEOUT_MS = 300;
const FAULTS: FaultCase[] = [];
for (const phase of ['before', 'after'] as const) {
  FAULTS.push(
    // Longer than the client waits: it gives up, the service carries on.
    // count 0: the fault lasts until cleared, so the client's own retries meet it too.
    { name: 'latency', phase, rule: (path, method) => ({ kind: 'latency', ms: TIMEOUT_MS * 2, phase, path, method, count: 0 }) },
    { name: '429', phase, rule: (path, method) => ({ kind: '429', phase, path, method, count: 0 }) },
    { name: '503', phase, rule: (path, method) => ({ kind: 'server_error', status: 503, phase, path, method, count: 0 }) },
    { name: 'reset', phase, rule: (path, method) => ({ kind: 'reset', phase, path, method, count: 0 }) },
    { name: 'malformed', phase, rule: (path, method) => ({ kind: 'malformed', phase, path, method, count: 0 }) },
  );
}
FAULTS.push(
  { name: 'slow boot', phase: 'boot', rule: () => ({ kind: 'slow_boot', ms: 60_000 }) },
  { name: 'boot failure', phase: 'boot', rule: () => ({ kind: 'boot_failure', status: 'exited' }) },
);

const ROUTES: Record<Operation, { path: string; method: string }> = {
  // The simulator matches faults against the path without its trailing slash, plus the query.
  search: { path: '/api/v0/bundles', method: 'POST' },
  rent: { path: '/api/v0/asks/', method: 'PUT' },
  poll: { path: '/api/v0/instances?', method: 'GET' },
  stop: { path: '/api/v0/instances/', method: 'PUT' },
  destroy: { path: '/api/v0/instances/', method: 'DELETE' },
};

interface Cell {
  outcome: string;
  message: string;
}

describe('fault matrix: 7 faults × before/after × search, rent, poll, stop, destroy (simulator)', function () {
  this.timeout(60_000);
  let sim: Marketplace;
  /** A client without faults' retries tuned down: the truth about the account. */
  const truth = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { maxAttempts: 4 }).client;
  /** The extension's client: short timeout so a latency fault outlasts it. */
  const client = (): GpuRentalClient => clientFor(sim.url, DEMO_KEY, { timeoutMs: TIMEOUT_MS, maxAttempts: 3 }).client;
  const matrix = new Map<string, Cell>();
  let duplicates = 0;
  let orphans = 0;
  let offerIds: number[] = [];

  before(async () => {
    sim = await startSimulator({ bootSeconds: 0.1, credit: 100_000 });
    const offers = await truth().offers.search({
      query: { filters: { rentable: { eq: true } }, order: [['dph_total', 'asc']], type: 'on-demand' },
      limit: 200,
    });
    offerIds = offers.map((o) => o.id);
  });
  afterEach(() => sim.control.clearFaults());
  after(async () => {
    await sim.stop();
    printMatrix(matrix, duplicates, orphans);
  });

  const nextOffer = () => {
    const id = offerIds.shift();
    assert.ok(id !== undefined, 'enough offers');
    return { id };
  };

  /**
   * An instance to poll, stop or destroy, rented without request faults: running, or under a boot
   * fault booting slowly or failed.
   */
  async function rentedInstance(label: string, fault: FaultCase): Promise<Instance> {
    if (fault.phase === 'boot') sim.control.addFault(fault.rule('', ''));
    const { instanceId } = await truth().instances.create(nextOffer().id, { image: 'ubuntu:22.04', disk: 10, label });
    return eventually(
      async () => {
        const i = await truth().instances.show(instanceId);
        const phase = instancePhase(i);
        if (fault.name === 'slow boot') return phase === 'loading' || phase === 'provisioning' ? i : undefined;
        if (fault.name === 'boot failure') return phase === 'failed' ? i : undefined;
        return phase === 'running' ? i : undefined;
      },
      `instance ${instanceId} ready for the cell`,
      10_000,
    );
  }

  async function accountInstances(): Promise<Instance[]> {
    return eventually(
      () =>
        truth()
          .instances.list()
          .catch(() => undefined),
      'a clean list',
      10_000,
    );
  }

  for (const fault of FAULTS) {
    for (const op of OPERATIONS) {
      const key = `${fault.name}|${fault.phase}|${op}`;
      it(`${fault.name} (${fault.phase}) × ${op}`, async () => {
        const route = ROUTES[op];
        const rule = fault.rule(route.path, route.method);
        const label = `matrix-${op}-${fault.name.replace(/\W+/g, '')}-${fault.phase}`;
        let cell: Cell;
        switch (op) {
          case 'search': {
            if (fault.phase !== 'boot') sim.control.addFault(rule);
            try {
              const offers = await client().offers.search({
                query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' },
                limit: 5,
              });
              cell = { outcome: 'ok', message: `${offers.length} offers` };
            } catch (error) {
              cell = { outcome: 'error', message: (error as Error).message };
              assert.match(cell.message, /^Could not search offers: /);
              assert.doesNotMatch(cell.message, /rented|billed/i);
            }
            break;
          }
          case 'rent': {
            const { renter } = renterFor({ timeoutMs: TIMEOUT_MS, windowMs: 1_500 });
            sim.control.addFault(rule);
            const settled = nextSettlement(renter);
            const outcome = await renter.rent(
              accountAt(sim.url),
              nextOffer(),
              { image: 'ubuntu:22.04', disk: 10, label },
              { description: 'matrix', perHour: 1 },
            );
            let told: 'made' | 'notMade';
            if (outcome.kind === 'created') {
              cell = { outcome: 'created', message: `rented as instance #${outcome.instanceId}` };
              told = 'made';
            } else if (outcome.kind === 'uncertain') {
              assert.match(rentOutcomeMessage(outcome), /not confirmed/);
              const s = await settled;
              cell = { outcome: `uncertain → ${s.kind}`, message: settlementMessage(s) };
              told = s.kind === 'found' ? 'made' : 'notMade';
            } else {
              cell = { outcome: outcome.kind, message: rentOutcomeMessage(outcome) };
              told = 'notMade';
            }
            sim.control.clearFaults();
            // A create the service is still holding (latency) lands before the truth is read.
            await new Promise((r) => setTimeout(r, TIMEOUT_MS * 2));
            const made = (await accountInstances()).filter((i) => i.label === label);
            if (made.length > 1) duplicates++;
            assert.ok(made.length <= 1, `${made.length} instances for one rent`);
            const exists = made.length === 1;
            if (exists && told !== 'made') orphans++;
            assert.equal(
              told,
              exists ? 'made' : 'notMade',
              `the user was told "${cell.message}" but the instance ${exists ? 'exists' : 'does not exist'}`,
            );
            if (!exists) assert.doesNotMatch(cell.message, /went through|rented as/);
            break;
          }
          case 'poll': {
            const poller = new InstancePoller({
              fetch: (signal) => client().instances.listInOneRequest({ signal, retry: 'never' }),
              intervalMs: () => 60_000,
              logger: new MemoryLogger(),
            });
            let failure: unknown;
            poller.onDidFail((e) => (failure = e));
            poller.setEnabled(true);
            await poller.refresh();
            const rented = await rentedInstance(label, fault);
            if (fault.phase !== 'boot') sim.control.addFault(rule);
            await poller.refresh();
            const shown = poller.snapshot?.instances ?? [];
            cell = failure
              ? { outcome: 'error (last list kept)', message: (failure as Error).message }
              : {
                  outcome: 'ok',
                  message:
                    shown
                      .map((i) => `#${i.id}: ${presentInstance(i, { nowMs: Date.now() }).description}`)
                      .find((m) => m.startsWith(`#${rented.id}`)) ?? `${shown.length} instances`,
                };
            if (failure) assert.match(cell.message, /^Could not list instances: /);
            // The next poll, without the fault, shows every instance of the account.
            sim.control.clearFaults();
            await poller.refresh();
            const account = await accountInstances();
            const missing = account.filter((a) => !(poller.snapshot?.instances ?? []).some((s) => s.id === a.id));
            orphans += missing.length;
            assert.deepEqual(
              missing.map((i) => i.id),
              [],
              'every instance of the account is shown',
            );
            poller.dispose();
            break;
          }
          case 'stop':
          case 'destroy': {
            const instance = await rentedInstance(label, fault);
            if (fault.phase !== 'boot') sim.control.addFault({ ...rule, path: `/api/v0/instances/${instance.id}` });
            const act = op === 'stop' ? stopInstance : destroyInstance;
            try {
              const result = await act(client().instances, instance, `"${label}"`);
              cell = { outcome: result.kind, message: result.message };
            } catch (error) {
              cell = { outcome: 'error', message: (error as Error).message };
            }
            sim.control.clearFaults();
            await new Promise((r) => setTimeout(r, TIMEOUT_MS * 2));
            const after = (await accountInstances()).find((i) => i.id === instance.id);
            const happened =
              op === 'stop' ? after !== undefined && ['stopped', 'stopping'].includes(instancePhase(after)) : after === undefined;
            if (happened) {
              assert.ok(cell.outcome === 'done' || cell.outcome === 'unknown', `the ${op} happened but the user was told: ${cell.message}`);
            } else {
              assert.ok(cell.outcome !== 'done', `the ${op} did not happen but the user was told: ${cell.message}`);
              assert.match(cell.message, /not (stopped|destroyed)|not known|Could not/);
            }
            if (op === 'stop')
              await truth()
                .instances.destroy(instance.id)
                .catch(() => undefined);
            break;
          }
        }
        matrix.set(key, cell);
      });
    }
  }
});

function printMatrix(matrix: Map<string, Cell>, duplicates: number, orphans: number): void {
  const rows = [...new Set([...matrix.keys()].map((k) => k.split('|').slice(0, 2).join(' / ')))];
  const width = 24;
  const pad = (s: string, n = width) => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));
  const lines = [`${pad('fault / phase', 22)}${OPERATIONS.map((o) => pad(o)).join('')}`];
  for (const row of rows) {
    const [fault, phase] = row.split(' / ');
    lines.push(`${pad(row, 22)}${OPERATIONS.map((op) => pad(matrix.get(`${fault}|${phase}|${op}`)?.outcome ?? '—')).join('')}`);
  }
  lines.push(`cells: ${matrix.size}; duplicate rents: ${duplicates}; orphaned instances: ${orphans}`);
  console.log(`\n${lines.join('\n')}\n`);
  if (process.env.GPU_RENTAL_MATRIX_MESSAGES) for (const [k, c] of matrix) console.log(`${k}: ${c.message}`);
}
