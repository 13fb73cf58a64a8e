import * as vscode from 'vscode';
import type { DepositRecord } from '../../core/api/contracts';
import type { Instance } from '../../core/api/instances';
import { contractExtra } from '../../core/contracts/rows';
import { ContractWatch, contractActionLabel, contractFacts, type ContractAccount, type ContractNotice } from '../../core/contracts/watch';
import { COMMANDS } from '../../core/ids';
import type { InstancePoller } from '../../core/instances/poller';
import type { RowExtra } from '../../core/instances/present';
import type { Logger } from '../../core/log';
import type { Session } from '../../core/session/session';
import type { GpuRentalState } from '../../core/stored';
import { stillOnAccount } from '../host/accountCheck';
import { config } from '../host/config';
import { notify } from '../pickers/notify';

export interface ContractDeps {
  readonly session: Pick<Session, 'bound' | 'client' | 'onDidChangeState'>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate' | 'snapshot'>;
  readonly state: Pick<GpuRentalState, 'get' | 'change'>;
  readonly logger: Logger;
}

/** How long a deposit read for a tooltip is kept before it is read again. */
const DEPOSIT_TTL_MS = 60_000;

/**
 * The contracts of this window's account (core/contracts/watch.ts): the hosts' price increases
 * listed as polls come in, each told once (in one window) with Accept, Reject and Rent Like This
 * Elsewhere, the ends within `gpuRental.contractEndNoticeDays` told the same way, and what the
 * Instances view's rows and tooltips show of them.
 */
export class ContractNotifier implements vscode.Disposable {
  readonly watch: ContractWatch;
  /** Notices this window showed, oldest first (the test API reads them). */
  readonly shown: Array<{ instanceId: number; text: string; buttons: string[] }> = [];
  private readonly deposits = new Map<number, { at: number; deposit: DepositRecord | undefined }>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly deps: ContractDeps) {
    this.watch = new ContractWatch({
      account: () => {
        const bound = deps.session.bound();
        return bound ? { baseUrl: bound.baseUrl, profileId: bound.profileId } : undefined;
      },
      list: () => deps.session.client.contracts.pendingIncreases({ retry: 'never' }),
      told: { get: () => deps.state.get('contractNotified'), change: (update) => deps.state.change('contractNotified', update) },
      logger: deps.logger,
    });
    this.disposables.push(
      this.watch,
      deps.poller.onDidUpdate((snapshot) => void this.check(snapshot.instances)),
      deps.session.onDidChangeState((state) => {
        if (state.kind === 'ready') return;
        this.watch.forget();
        this.deposits.clear();
      }),
    );
  }

  /** Fires when the rows must be drawn again (the pending increases changed). */
  get onDidChange(): vscode.Event<void> {
    return (listener) => this.watch.onDidChange(listener);
  }

  /** The text a row shows about its instance's contract. */
  extraOf(instance: Instance): RowExtra | undefined {
    return contractExtra(contractFacts(instance, this.watch.increaseOf(instance.id), Date.now(), config.contractEndNoticeDays()));
  }

  /** What is deposited on an on-demand instance, read at most once a minute (for its tooltip). */
  async depositOf(instance: Instance): Promise<DepositRecord | undefined> {
    if (instance.is_bid === true) return undefined;
    const hit = this.deposits.get(instance.id);
    if (hit && Date.now() - hit.at < DEPOSIT_TTL_MS) return hit.deposit;
    const deposit = await this.deps.session.client.contracts.deposit(instance.id).catch((error: unknown) => {
      this.deps.logger.debug(`Could not read the deposit of instance #${instance.id}: ${String(error)}`);
      return undefined;
    });
    this.deposits.set(instance.id, { at: Date.now(), deposit });
    return deposit;
  }

  /** Forgets a deposit read before (after a prepay), so the next tooltip reads it again. */
  forgetDeposit(instanceId: number): void {
    this.deposits.delete(instanceId);
  }

  /** Lists the increases again now (Refresh, an answer sent) and tells what is new. */
  async refresh(): Promise<void> {
    await this.watch.refresh(true);
    await this.tell(this.deps.poller.snapshot?.instances ?? []);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private async check(instances: readonly Instance[]): Promise<void> {
    await this.watch.refresh();
    await this.tell(instances);
  }

  private async tell(instances: readonly Instance[]): Promise<void> {
    const account = this.deps.session.bound();
    if (!account) return;
    const notices = await this.watch.toTell(instances, config.contractEndNoticeDays());
    for (const n of notices) void this.show(n, { baseUrl: account.baseUrl, profileId: account.profileId });
  }

  private async show(n: ContractNotice, account: ContractAccount): Promise<void> {
    this.shown.push({ instanceId: n.instanceId, text: n.notice.text, buttons: (n.notice.actions ?? []).map(contractActionLabel) });
    const action = await notify(n.notice, contractActionLabel);
    if (!action || !stillOnAccount(this.deps.session, account)) return;
    const command =
      action === 'accept' ? COMMANDS.acceptPriceIncrease : action === 'reject' ? COMMANDS.rejectPriceIncrease : COMMANDS.rentLikeElsewhere;
    void vscode.commands.executeCommand(command, n.instanceId);
  }
}
