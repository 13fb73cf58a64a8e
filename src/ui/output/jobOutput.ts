import { StringDecoder } from 'node:string_decoder';
import * as vscode from 'vscode';
import type { JobTerminal } from '../../core/jobs/book';

/** The output a job's terminal replays when it opens (the newest part of it). */
const REPLAY_CHARS = 1024 * 1024;

/** Text for a terminal: a lone `\n` moves to the start of the next line too; `\r` alone (progress bars) stays as it is. */
export function terminalText(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/**
 * One job's output in VS Code: a pseudoterminal "GPU Rental job: <label> (#id)" (progress bars
 * redraw in place there), fed by the job's follower. It keeps the newest megabyte, so a terminal
 * opened later shows what came before it, and it can be closed and opened again at will.
 */
export class JobOutput implements JobTerminal, vscode.Disposable {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private terminal: vscode.Terminal | undefined;
  private emitter: vscode.EventEmitter<string> | undefined;
  private opened = false;
  private readonly closing = new vscode.EventEmitter<boolean>();
  /** Fires true when the terminal opens, false when the user closes it. */
  readonly onDidChangeOpen = this.closing.event;

  constructor(readonly name: string) {}

  /** Its terminal, while open. */
  get openTerminal(): vscode.Terminal | undefined {
    return this.terminal;
  }

  /** Whether its terminal is showing. */
  get isOpen(): boolean {
    return this.terminal !== undefined;
  }

  /** Everything kept so far, as the terminal shows it (tests read it). */
  get text(): string {
    return this.buffer;
  }

  /** The job's bytes, in order. */
  append(chunk: Buffer): void {
    this.write(terminalText(this.decoder.write(chunk)));
  }

  /** A line of the extension's own (reconnecting, ended), dimmed so it is not taken for the job's output. */
  note(line: string): void {
    const tail = this.buffer.length > 0 && !this.buffer.endsWith('\n') ? '\r\n' : '';
    this.write(`${tail}\u001b[2m${vscode.l10n.t('[GPU Rental] {0}', line)}\u001b[0m\r\n`);
  }

  /** Opens the terminal (once) and shows it; `preserveFocus` leaves the cursor where it is. */
  show(preserveFocus = false): void {
    if (!this.terminal) {
      const emitter = (this.emitter = new vscode.EventEmitter<string>());
      const pty: vscode.Pseudoterminal = {
        onDidWrite: emitter.event,
        open: () => {
          this.opened = true;
          if (this.buffer) emitter.fire(this.buffer);
        },
        close: () => this.closed(),
      };
      this.terminal = vscode.window.createTerminal({
        name: this.name,
        pty,
        isTransient: true,
        iconPath: new vscode.ThemeIcon('server-process'),
      });
      this.closing.fire(true);
    }
    this.terminal.show(preserveFocus);
  }

  dispose(): void {
    const terminal = this.terminal;
    this.terminal = undefined;
    terminal?.dispose();
    this.emitter?.dispose();
    this.closing.dispose();
  }

  private write(text: string): void {
    if (!text) return;
    this.buffer += text;
    if (this.buffer.length > REPLAY_CHARS * 1.25) this.buffer = this.buffer.slice(-REPLAY_CHARS);
    if (this.opened) this.emitter?.fire(text);
  }

  private closed(): void {
    if (!this.terminal) return;
    this.terminal = undefined;
    this.opened = false;
    this.emitter?.dispose();
    this.emitter = undefined;
    this.closing.fire(false);
  }
}
