import { failure, info, type Notice } from '../notice';

/** What an account flow tells the user, and how loudly; the text is whole, "GPU Rental: " included. */
export type AccountNotice = Notice;

/** A flow's end: what it resolves with (for automation), and what the user is told. */
export interface Outcome<T> {
  value: T;
  notice?: AccountNotice;
}

export { info };
export const refusal = (text: string): AccountNotice => failure(text);
