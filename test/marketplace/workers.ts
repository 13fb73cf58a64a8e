/**
 * Serverless workers and their logs: what the autoscaler runs for each worker group, kept as
 * records (no container is booted for them). Like instances (lifecycle.ts), workers move on with
 * the simulator's clock whenever it ticks, so a test drives them with `now`.
 *
 * - A group keeps min(max_workers, max(cold_workers, test_workers)) workers (group defaults:
 *   cold 3, test 3, max 20, so 3). Creating it, or changing those fields, scales the list;
 *   scaling down stops the newest first.
 * - A new worker is "loading" for WORKER_LOAD_MS, then "idle".
 * - Each group and each endpoint has a log of timestamped lines (`2026-11-01 12:00:05 - text`),
 *   written when something happens: the endpoint's log gets its groups' lines too, each ending
 *   with `[worker group N]`. A log keeps its last MAX_LOG_LINES lines.
 * - A state file written before workers existed has neither workers nor logs: its groups have
 *   none until their next change scales them (nothing is invented for the past).
 */
import { epoch } from './router';
import type { EndpointRecord, Ms, ServerlessLog, StoreData, WorkerGroupRecord, WorkerRecord } from './model';
import type { Store } from './state';

/** How long a new worker loads before it is idle, in simulated time. */
export const WORKER_LOAD_MS = 5_000;
/** The service's own default tail; older lines are dropped so a state file does not grow forever. */
export const MAX_LOG_LINES = 10_000;
/** Worker URLs are `http://127.0.0.1:<WORKER_PORT_BASE + id % 1000>`: nothing listens there. */
export const WORKER_PORT_BASE = 8_000;

export function workersOf(data: StoreData): WorkerRecord[] {
  return (data.workers ??= []);
}

export const groupLogKey = (groupId: number) => `group:${groupId}`;
export const endpointLogKey = (endpointId: number) => `endpoint:${endpointId}`;

/** The log's lines; empty for a log nothing was written to. */
export function logLines(data: StoreData, key: string): string[] {
  return (data.serverlessLogs ?? []).find((l) => l.key === key)?.lines ?? [];
}

function append(data: StoreData, key: string, line: string): void {
  const logs = (data.serverlessLogs ??= []);
  let log: ServerlessLog | undefined = logs.find((l) => l.key === key);
  if (!log) logs.push((log = { key, lines: [] }));
  log.lines.push(line);
  if (log.lines.length > MAX_LOG_LINES) log.lines.splice(0, log.lines.length - MAX_LOG_LINES);
}

/** As the service prints times in its logs: UTC, to the second. */
function stamp(ms: Ms): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** A line in the group's log and in its endpoint's. */
export function sayForGroup(data: StoreData, g: WorkerGroupRecord, at: Ms, text: string): void {
  const line = `${stamp(at)} - ${text}`;
  append(data, groupLogKey(g.id), line);
  append(data, endpointLogKey(g.endpointId), `${line} [worker group ${g.id}]`);
}

/** A line about the endpoint itself (its own settings), in its log only. */
export function sayForEndpoint(data: StoreData, e: EndpointRecord, at: Ms, text: string): void {
  append(data, endpointLogKey(e.id), `${stamp(at)} - ${text}`);
}

/** How many workers the group keeps. A null max_workers means no cap; a null count means none. */
export function workerTarget(g: WorkerGroupRecord): number {
  const n = (name: string, otherwise: number) => {
    const v = g.fields[name];
    return typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.floor(v)) : otherwise;
  };
  return Math.min(n('max_workers', Infinity), Math.max(n('cold_workers', 0), n('test_workers', 0)));
}

/** Brings the group's workers to its target: new ones start loading, the newest go first. */
export function scaleGroup(store: Store, g: WorkerGroupRecord, now: Ms): void {
  const data = store.data;
  const mine = workersOf(data).filter((w) => w.groupId === g.id);
  const target = workerTarget(g);
  if (mine.length === target) return;
  for (let n = mine.length; n < target; n++) {
    const w: WorkerRecord = {
      id: store.nextId('worker'),
      accountId: g.accountId,
      groupId: g.id,
      endpointId: g.endpointId,
      createdAt: now,
      readyAt: now + WORKER_LOAD_MS,
    };
    workersOf(data).push(w);
    sayForGroup(data, g, now, `worker ${w.id} loading`);
  }
  if (mine.length > target) {
    const gone = mine.slice(target).map((w) => w.id);
    data.workers = workersOf(data).filter((w) => !gone.includes(w.id));
    for (const id of gone) sayForGroup(data, g, now, `worker ${id} stopped (scaled down)`);
  }
  sayForGroup(data, g, now, `scaled to ${target} worker${target === 1 ? '' : 's'}`);
  store.changed();
}

/**
 * Workers whose load time has passed become idle; the logs say so at the moment it happened, in
 * the order it happened. Runs on every tick, before any request writes its own lines, so a log
 * never shows an earlier time after a later one.
 */
export function settleWorkers(store: Store, now: Ms): void {
  const data = store.data;
  const due = workersOf(data)
    .filter((w) => !w.announced && w.readyAt <= now)
    .sort((a, b) => a.readyAt - b.readyAt || a.id - b.id);
  for (const w of due) {
    const g = data.workerGroups.find((x) => x.id === w.groupId);
    if (g) sayForGroup(data, g, w.readyAt, `worker ${w.id} ready`);
    w.announced = true;
  }
  if (due.length > 0) store.changed();
}

/** Removes the workers of these groups; returns their ids. */
export function dropWorkers(data: StoreData, groupIds: ReadonlySet<number>): number[] {
  const all = workersOf(data);
  const gone = all.filter((w) => groupIds.has(w.groupId)).map((w) => w.id);
  data.workers = all.filter((w) => !groupIds.has(w.groupId));
  return gone;
}

export function dropLogs(data: StoreData, keys: ReadonlySet<string>): void {
  data.serverlessLogs = (data.serverlessLogs ?? []).filter((l) => !keys.has(l.key));
}

/** A worker as the autoscaler lists it. Load is in the endpoint's units; an idle worker serves nothing. */
export function workerRow(w: WorkerRecord, now: Ms) {
  const ready = now >= w.readyAt;
  return {
    id: w.id,
    status: ready ? 'idle' : 'loading',
    url: `http://127.0.0.1:${WORKER_PORT_BASE + (w.id % 1_000)}`,
    created_at: epoch(w.createdAt),
    cur_load: 0,
    perf: ready ? 100 + (w.id % 7) * 10 : 0,
    reqs_working: 0,
  };
}

/** The last `count` lines, joined; no count (or a bad one) means the service's default. */
export function tailText(lines: readonly string[], count: number | undefined): string {
  const n = count !== undefined && count >= 1 ? Math.floor(count) : MAX_LOG_LINES;
  return lines.slice(-n).join('\n');
}
