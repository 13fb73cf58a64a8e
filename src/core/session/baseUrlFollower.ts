import type { Logger } from '../log';
import type { Session } from './session';
import { l10n } from '../l10n';

export interface BaseUrlFollowerDeps {
  /** The base URL the setting asks for now. */
  readonly wanted: () => string;
  readonly session: Pick<Session, 'baseUrl' | 'setBaseUrl'>;
  /** Why the account cannot change now (a rent whose outcome is not known), or undefined. */
  readonly freezeReason: () => string | undefined;
  /** Tells the user, once, why the change waits. */
  readonly warn: (message: string) => void;
  readonly logger: Logger;
}

/**
 * Follows the base URL setting. While a rent is unsettled the window stays on the service the rent
 * went to (the setting cannot be refused, so the change waits), and the user is told why; the
 * change applies once no rent is pending.
 */
export class BaseUrlFollower {
  private waiting = false;

  constructor(private readonly deps: BaseUrlFollowerDeps) {}

  /** True while a change of the setting waits for a rent to settle. */
  get isWaiting(): boolean {
    return this.waiting;
  }

  /** Applies the setting now, or waits when a rent is unsettled. */
  follow(): void {
    const { session, logger } = this.deps;
    const wanted = this.deps.wanted();
    const reason = this.deps.freezeReason();
    if (reason && wanted !== session.baseUrl) {
      if (!this.waiting)
        this.deps.warn(
          l10n.t(
            'GPU Rental keeps using {0} for now; it switches to {1} once the rent is settled. Why: {2}',
            session.baseUrl,
            wanted,
            reason,
          ),
        );
      this.waiting = true;
      return;
    }
    this.waiting = false;
    void session.setBaseUrl(wanted).catch((error: unknown) => logger.warn(`The base URL was not changed: ${String(error)}`));
  }

  /** Called when the rent journal changes: a change that waited applies once none is pending. */
  journalChanged(): void {
    if (this.waiting && !this.deps.freezeReason()) this.follow();
  }
}
