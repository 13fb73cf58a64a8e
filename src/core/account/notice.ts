/** What an account flow tells the user, and how loudly; the text is whole, "GPU Rental: " included. */
export interface AccountNotice {
  severity: 'info' | 'warning' | 'error';
  text: string;
}

/** A flow's end: what it resolves with (for automation), and what the user is told. */
export interface Outcome<T> {
  value: T;
  notice?: AccountNotice;
}

export const info = (text: string): AccountNotice => ({ severity: 'info', text });
export const refusal = (text: string): AccountNotice => ({ severity: 'error', text });
