import { l10n } from '../l10n';
import type { Renter } from './renter';

/**
 * One rent at a time in this window, across Rent Offer and Rent Best Match: held from the first
 * question to the renter's answer, so a second click neither opens a second wizard nor slips a rent
 * in between a failover's attempts.
 */
export class RentGate {
  private held = false;
  /** `tell` shows the notice a refused second rent gets. */
  constructor(
    private readonly renter: Pick<Renter, 'busy'>,
    private readonly tell: (text: string) => void,
  ) {}

  get busy(): boolean {
    return this.held || this.renter.busy;
  }

  /** Runs `fn` holding the gate; when a rent is already in progress, says so and resolves undefined. */
  async run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    if (this.busy) {
      this.tell(l10n.t('GPU Rental: a rent is already in progress. Wait for it to finish.'));
      return undefined;
    }
    this.held = true;
    try {
      return await fn();
    } finally {
      this.held = false;
    }
  }
}
