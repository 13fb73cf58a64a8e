import * as vscode from 'vscode';
import type { Offer } from '../../core/api/offers';
import { DEFAULT_OFFER_FILTERS, presentOffer } from '../../core/offers/present';
import type { Session } from '../../core/session/session';
import { ListView } from './listView';

const PAGE_SIZE = 64;

export class OfferItem extends vscode.TreeItem {
  constructor(readonly offer: Offer) {
    const p = presentOffer(offer);
    super(p.label, vscode.TreeItemCollapsibleState.None);
    this.id = `offer-${offer.id}`;
    this.description = p.description;
    this.tooltip = new vscode.MarkdownString(p.tooltip);
    this.iconPath = new vscode.ThemeIcon('server');
    this.contextValue = 'offer';
  }
}

/** Rentable offers, best performance per dollar first. */
export class OffersView extends ListView<OfferItem> {
  constructor(session: Session) {
    super(session, 'search offers');
  }

  protected async load(): Promise<OfferItem[]> {
    const offers = await this.session.client.offers.search({
      query: { filters: { ...DEFAULT_OFFER_FILTERS }, order: [['dlperf_per_dphtotal', 'desc']], type: 'on-demand' },
      limit: PAGE_SIZE,
    });
    return offers.map((offer) => new OfferItem(offer));
  }
}
