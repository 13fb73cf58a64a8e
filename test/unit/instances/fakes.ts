import { ApiError } from '../../../src/core/api/errors';
import { InstanceSchema, type Instance } from '../../../src/core/api/instances';
import type { AfterChange, InstanceFlowDeps } from '../../../src/core/instances/flows';
import type { Ask } from '../../../src/core/prompts';
import { MemoryLogger } from '../../support';

/** An instance as the service lists it: running, $0.40/h, its disk $0.02/h. */
export const make = (id: number, over: Record<string, unknown> = {}): Instance =>
  InstanceSchema.parse({
    id,
    label: `m${id}`,
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    dph_total: 0.4,
    storage_total_cost: 0.02,
    actual_status: 'running',
    intended_status: 'running',
    ...over,
  });

export const stopped = (id: number, over: Record<string, unknown> = {}): Instance =>
  make(id, { actual_status: 'stopped', intended_status: 'stopped', ...over });

/** An answer that was not seen: the connection broke after the request went out. */
export const lostAnswer = (): ApiError =>
  new ApiError({ kind: 'network', action: 'act on an instance', method: 'PUT', path: '/instances/1/', outcomeUnknown: true });

export const refusal = (): ApiError =>
  new ApiError({ kind: 'forbidden', action: 'act on an instance', method: 'PUT', path: '/instances/1/' });

type Call = [string, number, ...unknown[]];

/**
 * The instances calls, recording each request; `fail` makes a call on an id throw (`show` after
 * a lost answer is the second look).
 */
export function fakeInstances(list: Instance[] = []) {
  const calls: Call[] = [];
  const fail = new Map<string, () => unknown>();
  const act =
    (name: string) =>
    (id: number, ...rest: unknown[]) => {
      calls.push([name, id, ...rest]);
      const f = fail.get(`${name} ${id}`);
      if (f) return Promise.reject(f());
      return Promise.resolve();
    };
  return {
    calls,
    /** Makes `name` on `id` throw what `error` makes. */
    fail: (name: string, id: number, error: () => unknown) => fail.set(`${name} ${id}`, error),
    requested: (name: string) => calls.filter((c) => c[0] === name).map((c) => c[1]),
    client: {
      stop: act('stop'),
      start: act('start'),
      destroy: act('destroy'),
      reboot: act('reboot'),
      setLabel: act('setLabel'),
      show: async (id: number): Promise<Instance> => {
        calls.push(['show', id]);
        const f = fail.get(`show ${id}`);
        if (f) throw f();
        return list.find((i) => i.id === id) ?? make(id);
      },
    },
  };
}

/** What the flows did afterwards, in order. */
export function recordedAfter(): AfterChange & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    track: (id) => void log.push(`track ${id}`),
    watch: (id) => void log.push(`watch ${id}`),
    refresh: async () => void log.push('refresh'),
    forget: async (id) => void log.push(`forget ${id}`),
  };
}

/** The flows' deps over fakes; `spend` answers `allowed` and records what it was asked. */
export function flowDeps(ask: Ask, instances = fakeInstances(), allowed = true) {
  const spendAsked: Array<{ adds: number; what: string }> = [];
  const after = recordedAfter();
  const logger = new MemoryLogger();
  const deps: InstanceFlowDeps = {
    ask,
    instances: instances.client,
    spend: async (adds, what) => (spendAsked.push({ adds, what }), allowed),
    after,
    logger,
  };
  return { deps, instances, after, logger, spendAsked };
}
