import { COMMANDS } from '../../core/ids';
import { command, type CommandDefinition } from '../registry';
import type { OfferExplorer } from '../views/explorerPanel';

/** Open Offer Explorer: from the Offers view's title bar and the palette. */
export function explorerCommands(deps: { readonly explorer: OfferExplorer }): CommandDefinition[] {
  return [command(COMMANDS.openOfferExplorer, () => deps.explorer.open())];
}
