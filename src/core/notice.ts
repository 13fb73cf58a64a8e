/**
 * What a core flow tells the user in a notification: how loudly, its whole text ("GPU Rental: "
 * included), and its buttons as identifiers. Each area keeps its own action union and the label
 * function beside it; ui shows any notice with one function (`src/ui/pickers/notify.ts`).
 */

/** How loudly a notice is shown. */
export type Severity = 'info' | 'warning' | 'error';

/** A notice with the buttons `A` (identifiers; the area's label function words them). */
export interface Notice<A extends string = never> {
  readonly severity: Severity;
  readonly text: string;
  readonly actions?: readonly A[];
}

/** An information notice without buttons. */
export const info = (text: string): Notice & { readonly severity: 'info' } => ({ severity: 'info', text });

/** An error notice without buttons (a refusal). */
export const failure = (text: string): Notice & { readonly severity: 'error' } => ({ severity: 'error', text });
