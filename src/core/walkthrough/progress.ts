import type { Disposable, Event } from '../events';
import type { Instance } from '../api/instances';
import { instancePhase } from '../instances/phase';

/** The Get Started steps that complete on what the user does (the key step completes on the session's own key). */
export type WalkthroughStep = 'offersListed' | 'rented' | 'stopped';

/** What the walkthrough watches: the session, the instance snapshots, the Offers view's rows. */
export interface WalkthroughSources {
  readonly session: { readonly onDidChangeState: Event<unknown>; readonly state: { readonly kind: string } };
  readonly poller: {
    readonly onDidUpdate: Event<{ readonly instances: readonly Instance[] }>;
    readonly snapshot: { readonly instances: readonly Instance[] } | undefined;
  };
  readonly offersView: { readonly onDidChangeTreeData: Event<unknown>; readonly offers: readonly unknown[] };
}

/**
 * Marks the Get Started steps done when the user really does what they ask: offers listed in the
 * Offers view, an instance on the account, an instance stopped or destroyed. VS Code remembers a
 * completed step, so each step is marked once and never cleared. Opening a step marks nothing.
 */
export class WalkthroughProgress implements Disposable {
  private readonly disposables: Disposable[] = [];
  private readonly marked = new Set<WalkthroughStep>();
  /** Instances seen in this account's snapshots: one missing later was destroyed. */
  private seen = new Set<number>();

  constructor(
    private readonly sources: WalkthroughSources,
    private readonly mark: (step: WalkthroughStep) => void,
  ) {
    // The Offers view sets its rows before it fires for them (the price context's redraw comes after the rows are shown).
    this.disposables.push(sources.offersView.onDidChangeTreeData(() => this.offersShown()));
    this.disposables.push(sources.poller.onDidUpdate((snapshot) => this.instancesSeen(snapshot.instances)));
    // Another account's list is not this one's: an instance missing after a switch was not destroyed.
    this.disposables.push(sources.session.onDidChangeState(() => (this.seen = new Set())));
    this.offersShown();
    if (sources.poller.snapshot) this.instancesSeen(sources.poller.snapshot.instances);
  }

  private offersShown(): void {
    if (this.sources.offersView.offers.length > 0) this.once('offersListed');
  }

  private instancesSeen(instances: readonly Instance[]): void {
    // Both steps this list can mark are marked: nothing more to learn from it, at any size.
    if (this.marked.has('rented') && this.marked.has('stopped')) return;
    if (this.sources.session.state.kind !== 'ready') return;
    const now = new Set(instances.map((i) => i.id));
    if (now.size > 0) this.once('rented');
    const destroyed = [...this.seen].some((id) => !now.has(id));
    const stopped = instances.map((i) => instancePhase(i)).some((p) => p === 'stopped' || p === 'stopping' || p === 'gone');
    if (destroyed || stopped) this.once('stopped');
    this.seen = new Set([...this.seen, ...now]);
  }

  private once(step: WalkthroughStep): void {
    if (this.marked.has(step)) return;
    this.marked.add(step);
    this.mark(step);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
