// Free of `vscode` at run time, so plain mocha tests it (test/unit/shell/gate.test.ts).

/**
 * How the one asking hears that the rest could not load: `each` (a command, a link: a person's
 * action, each told by a notification) or `first` (a view, a restored panel, the start-up work:
 * they show why in place, and only the first failure of the window also notifies).
 */
export type Notify = 'each' | 'first';

/** The rest, or why it could not load. */
export type Outcome<T> = { readonly main: T; readonly failed?: undefined } | { readonly main?: undefined; readonly failed: string };

export interface GatePorts<M, T> {
  /**
   * Evaluates dist/main.js; throws when it cannot. Node forgets a module whose evaluation threw,
   * so a later call reads the file again (a file replaced mid-update loads on the next try).
   */
  readonly evaluate: () => M;
  /** Starts the evaluated rest. */
  readonly start: (module: M, reason: string) => T;
  /** Says in a notification that the rest could not load (`detail`: why), with what to do. */
  readonly notify: (detail: string) => void;
  /** The error for a request made while the rest is loading (its own start asked for it). */
  readonly reentered: (reason: string) => Error;
}

/**
 * Loads the rest of the extension (dist/main.js) the first time anything asks. A load that failed
 * is tried again on the next request, so a passing fault heals without a reload, and every
 * request that finds no rest learns why: never an undefined that ends an action in silence. A
 * rest that evaluated but failed to start is not started twice (its half-built parts would be
 * doubled): each later request gets that failure again.
 */
export class MainGate<M, T> {
  private main: T | undefined;
  private evaluated: { readonly module: M } | undefined;
  private startFailure: string | undefined;
  private loading = false;
  private told = false;

  constructor(private readonly ports: GatePorts<M, T>) {}

  /** The rest, when it has loaded; never loads it. */
  get loaded(): T | undefined {
    return this.main;
  }

  load(reason: string, notify: Notify): Outcome<T> {
    if (this.main !== undefined) return { main: this.main };
    if (this.loading) throw this.ports.reentered(reason);
    const failed = this.attempt(reason);
    if (failed === undefined && this.main !== undefined) return { main: this.main };
    const detail = failed ?? '?';
    if (notify === 'each' || !this.told) {
      this.told = true;
      this.ports.notify(detail);
    }
    return { failed: detail };
  }

  private attempt(reason: string): string | undefined {
    if (this.startFailure !== undefined) return this.startFailure;
    this.loading = true;
    try {
      this.evaluated ??= { module: this.ports.evaluate() };
      this.main = this.ports.start(this.evaluated.module, reason);
      return undefined;
    } catch (error) {
      const detail = reasonOf(error);
      if (this.evaluated !== undefined) this.startFailure = detail;
      return detail;
    } finally {
      this.loading = false;
    }
  }
}

/** The longest reason a message quotes. */
const MAX_DETAIL = 300;

/** The error's first line (Node's "Require stack" follows it), short enough for a notification. */
function reasonOf(error: unknown): string {
  const line = (error instanceof Error ? error.message : String(error)).trim().split(/\r?\n/, 1)[0]!.trim();
  if (line === '') return '?';
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 1)}…` : line;
}

/** A restored panel's page when the rest could not load: `message` (why, and what to do) as text. */
export function failedPanelHtml(message: string): string {
  const escaped = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><p>${escaped}</p></body></html>`;
}
