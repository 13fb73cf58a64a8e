/**
 * Instance lifecycle. Transitions are computed lazily from the clock: `advance` walks an instance
 * through every phase change that is due, at the exact instant each was due, so billing and logs
 * are the same whether the instance is observed often, rarely, or with a clock that jumps.
 *
 * A boot takes `bootMs`: the first 40% provisioning (status null; "scheduling" after a restart,
 * "rebooting" after a reboot), the remaining 60% loading; then running, or the failure status of
 * a doomed instance (exited/offline/unknown), which never becomes running.
 */
import { balance, closeSegment, openSegment } from './ledger';
import type { Contract, FailureStatus, InstanceState, Ms, Phase, StoreData } from './model';
import type { Network } from './network';

export const PROVISION_SHARE = 0.4;
export const FAILURE_STATUSES: readonly FailureStatus[] = ['exited', 'offline', 'unknown'];

const FAILURE_TEXT: Record<FailureStatus, string> = {
  exited: 'Error: container exited with code 1 before it was ready',
  offline: 'Host machine went offline',
  unknown: 'No recent heartbeat from the host machine',
};

function stamp(at: Ms): string {
  return new Date(at).toISOString();
}

export function addLog(inst: InstanceState, at: Ms, text: string): void {
  inst.log.push({ at, text: `${stamp(at)} ${text}` });
  if (inst.log.length > 2000) inst.log.splice(0, inst.log.length - 2000);
}

function enter(inst: InstanceState, phase: Phase, at: Ms): void {
  inst.phase = phase;
  inst.phaseSince = at;
}

function enterRunning(inst: InstanceState, contract: Contract, at: Ms, network: Network): void {
  enter(inst, 'running', at);
  inst.runningSince = at;
  inst.failure = null;
  inst.transferNote = null;
  openSegment(contract, 'gpu', inst.gpuRate, at);
  addLog(inst, at, `Container started; runtype ${inst.runtype}`);
  if (inst.onstart) addLog(inst, at, 'Running onstart script /root/onstart.sh');
  if (/ssh|jupyter/.test(inst.runtype)) addLog(inst, at, 'sshd: Server listening on 0.0.0.0 port 22.');
  network.onRunning(inst);
}

function leaveRunning(inst: InstanceState, contract: Contract, at: Ms): void {
  closeSegment(contract, 'gpu', at);
  inst.runningSince = null;
}

export function fail(inst: InstanceState, contract: Contract, status: FailureStatus, at: Ms, network: Network): void {
  if (inst.phase === 'running') leaveRunning(inst, contract, at);
  enter(inst, 'failed', at);
  inst.failure = status;
  addLog(inst, at, FAILURE_TEXT[status]);
  network.release(inst.id);
}

/** Applies every transition due by `now`. Returns whether anything changed. */
export function advance(inst: InstanceState, contract: Contract, now: Ms, network: Network): boolean {
  let changed = false;
  for (;;) {
    if (inst.phase === 'provisioning' || inst.phase === 'scheduling' || inst.phase === 'rebooting') {
      const due = inst.phaseSince + inst.bootMs * PROVISION_SHARE;
      if (now < due) break;
      enter(inst, 'loading', due);
      addLog(inst, due, `Pulling image ${inst.image}`);
    } else if (inst.phase === 'loading') {
      const due = inst.phaseSince + inst.bootMs * (1 - PROVISION_SHARE);
      if (now < due) break;
      addLog(inst, due, `Status: Image is up to date for ${inst.image}`);
      if (inst.doom) fail(inst, contract, inst.doom, due, network);
      else enterRunning(inst, contract, due, network);
    } else {
      break;
    }
    changed = true;
  }
  return changed;
}

export function stop(inst: InstanceState, contract: Contract, now: Ms, reason: string, network: Network): void {
  // Any stop is the renter's (or the credit's): an outbid instance stopped again is no longer waiting for its bid.
  inst.outbid = false;
  if (inst.phase === 'stopped') return;
  if (inst.phase === 'running') leaveRunning(inst, contract, now);
  enter(inst, 'stopped', now);
  inst.stopReason = reason;
  inst.failure = null;
  addLog(inst, now, `Stopping container: ${reason}`);
  network.release(inst.id);
  network.stopped(inst, now, reason);
}

/** Start from stopped or failed: a new boot with a new address. A no-op while booting or running. */
export function start(
  inst: InstanceState,
  now: Ms,
  network: Network,
  offer: { public_ipaddr: string; direct_port_count: number; machine_id: number },
): void {
  if (inst.phase !== 'stopped' && inst.phase !== 'failed') return;
  inst.outbid = false;
  inst.bootCount += 1;
  inst.endpoint = network.assign({
    instanceId: inst.id,
    bootCount: inst.bootCount,
    runtype: inst.runtype,
    extraPorts: extraPorts(inst.env),
    offer,
  });
  inst.failure = null;
  inst.stopReason = null;
  enter(inst, 'scheduling', now);
  addLog(inst, now, 'Scheduling: waiting for the GPU');
}

/**
 * Reboot keeps the GPU, the address and the files; the container's processes end and start again
 * when it runs. Only a running instance can reboot.
 */
export function reboot(inst: InstanceState, contract: Contract, now: Ms, network: Network): boolean {
  if (inst.phase !== 'running') return false;
  leaveRunning(inst, contract, now);
  network.release(inst.id);
  enter(inst, 'rebooting', now);
  addLog(inst, now, 'Rebooting container');
  return true;
}

/** Forces a status, for the control route. */
export function forceStatus(inst: InstanceState, contract: Contract, status: string | null, now: Ms, network: Network): void {
  switch (status) {
    case 'running':
      inst.doom = null;
      if (inst.phase !== 'running') enterRunning(inst, contract, now, network);
      return;
    case 'stopped':
      stop(inst, contract, now, 'stopped by the host', network);
      return;
    case 'exited':
    case 'offline':
    case 'unknown':
      inst.doom = status;
      fail(inst, contract, status, now, network);
      return;
    case null:
    case 'provisioning':
    case 'loading':
    case 'scheduling':
    case 'rebooting':
      if (inst.phase === 'running') {
        leaveRunning(inst, contract, now);
        network.release(inst.id);
      }
      enter(inst, status === null ? 'provisioning' : status, now);
      return;
    default:
      throw new Error(`unknown status '${status}'; use null, loading, running, stopped, rebooting, scheduling, exited, offline or unknown`);
  }
}

export interface StatusFields {
  actual_status: string | null;
  intended_status: string;
  cur_state: string;
  next_state: string;
  status_msg: string | null;
}

export function statusFields(inst: InstanceState): StatusFields {
  const wantRunning = { intended_status: 'running', cur_state: 'running', next_state: 'running' };
  switch (inst.phase) {
    case 'provisioning':
      return { actual_status: null, ...wantRunning, status_msg: null };
    case 'scheduling':
      return { actual_status: null, ...wantRunning, status_msg: 'Scheduling: waiting for the GPU to be free' };
    case 'rebooting':
      return { actual_status: 'rebooting', ...wantRunning, status_msg: 'Rebooting' };
    case 'loading':
      return { actual_status: 'loading', ...wantRunning, status_msg: `Pulling image ${inst.image}` };
    case 'running':
      return {
        actual_status: 'running',
        ...wantRunning,
        status_msg: inst.transferNote ?? `success, running ${inst.image}/${inst.runtype}`,
      };
    case 'stopped':
      // Outbid (bids.ts): the service halted it, the renter did not; it wants to run again once the bid wins.
      if (inst.outbid)
        return { actual_status: 'stopped', ...wantRunning, next_state: 'stopped', cur_state: 'stopped', status_msg: inst.stopReason };
      return {
        actual_status: 'stopped',
        intended_status: 'stopped',
        cur_state: 'stopped',
        next_state: 'stopped',
        status_msg: inst.stopReason,
      };
    case 'failed': {
      const failure = inst.failure ?? 'exited';
      return { actual_status: failure, ...wantRunning, status_msg: FAILURE_TEXT[failure] };
    }
  }
}

/** Container ports asked for in env flags such as `-p 8000:8000` or `-p 8081:8081/udp`. */
export function extraPorts(env: Array<[string, string]>): string[] {
  const out: string[] = [];
  for (const [name] of env) {
    const m = /^-p\s+(?:\d+:)?(\d+)(\/(tcp|udp))?$/.exec(name.trim());
    if (m) out.push(`${m[1]}/${m[3] ?? 'tcp'}`);
  }
  return out;
}

/**
 * Stops the running instances of every account whose credit has run out, at the moment it ran
 * out (estimated from the account's current burn rate), as the service does. Instances that
 * `paidFor` says something else pays for now (a prepaid deposit, prepay.ts) keep running, and their
 * rates do not count in the burn. Returns whether any instance stopped.
 */
export function stopWhereCreditRanOut(
  data: StoreData,
  contractOf: (id: number) => Contract,
  now: Ms,
  network: Network,
  paidFor: (instanceId: number) => boolean = () => false,
): boolean {
  let stopped = false;
  for (const account of data.accounts) {
    const candidates = data.instances.filter((i) => i.accountId === account.id && i.phase === 'running');
    if (candidates.length === 0) continue;
    const left = balance(data, account.id, now);
    if (left > 0) continue;
    const running = candidates.filter((i) => !paidFor(i.id));
    if (running.length === 0) continue;
    const burn = data.contracts
      .filter((c) => c.accountId === account.id && !paidFor(c.id))
      .flatMap((c) => c.segments.filter((s) => s.end === null))
      .reduce((sum, s) => sum + s.rate, 0);
    const ranOut = burn > 0 ? now + (left / burn) * 3_600_000 : now;
    for (const inst of running) stop(inst, contractOf(inst.id), Math.max(inst.phaseSince, ranOut), 'Stopped: out of credit', network);
    stopped = true;
  }
  return stopped;
}
