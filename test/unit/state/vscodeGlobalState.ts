import type { KeyValueStore } from '../../../src/core/state/storedState';

type Step = { kind: 'flush' | 'main' | 'echo' | 'reply'; window: Window; run: () => void };

/**
 * VS Code 1.139's global state, modelled step by step so a test chooses the order in which its
 * messages arrive (read from code-server 4.139.1's extensionHostProcess.js and workbench.js):
 *
 * - An extension host's memento keeps one object for all of the extension's keys. `update` sets the
 *   key in it and schedules a flush (a 0 ms timer) that sends the whole object to the workbench.
 * - The workbench stores what it is sent and reports the change back to every window, the sender
 *   included: each window's memento replaces its whole object with the reported one. Then it
 *   answers the sender, whose `update` promises resolve.
 *
 * Steps wait in `steps` until the test runs them, in order (`drain`) or one kind first (`run`).
 */
export class GlobalStateModel {
  /** What the workbench has stored. */
  stored: Record<string, unknown> = {};
  readonly steps: Step[] = [];
  private readonly windows: Window[] = [];

  window(): Window {
    const w = new Window(this);
    w.value = structuredClone(this.stored);
    this.windows.push(w);
    return w;
  }

  /** The workbench receives a window's object: stores it, reports it to every window, then answers. */
  receive(from: Window, json: string, answer: () => void): void {
    this.steps.push({
      kind: 'main',
      window: from,
      run: () => {
        this.stored = JSON.parse(json) as Record<string, unknown>;
        for (const w of this.windows) this.steps.push({ kind: 'echo', window: w, run: () => (w.value = JSON.parse(json)) });
        this.steps.push({ kind: 'reply', window: from, run: answer });
      },
    });
  }

  /** Another window's write as the workbench reports it: the key set in what it stores, reported to every window. */
  writtenElsewhere(key: string, value: unknown): void {
    this.stored = { ...this.stored, [key]: value };
    const json = JSON.stringify(this.stored);
    for (const w of this.windows) this.steps.push({ kind: 'echo', window: w, run: () => (w.value = JSON.parse(json)) });
  }

  /** Runs the first waiting step of `kind` (of `window`, if given), then lets promise callbacks run. */
  async run(kind: Step['kind'], window?: Window): Promise<void> {
    const i = this.steps.findIndex((s) => s.kind === kind && (!window || s.window === window));
    if (i < 0) throw new Error(`no ${kind} step is waiting`);
    const [step] = this.steps.splice(i, 1);
    step!.run();
    await settle();
  }

  /** Runs every step in the order they were queued, including those they queue, until none is left. */
  async drain(): Promise<void> {
    await settle();
    while (this.steps.length > 0) {
      this.steps.shift()!.run();
      await settle();
    }
  }
}

/** One window's memento (ExtensionMemento for globalState). */
class Window implements KeyValueStore {
  value: Record<string, unknown> = {};
  private flushScheduled = false;
  private waiting: Array<() => void> = [];

  constructor(private readonly model: GlobalStateModel) {}

  get(key: string): unknown {
    return this.value[key];
  }

  update(key: string, value: unknown): Promise<void> {
    this.value[key] = value;
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      this.model.steps.push({
        kind: 'flush',
        window: this,
        run: () => {
          this.flushScheduled = false;
          const answered = this.waiting;
          this.waiting = [];
          this.model.receive(this, JSON.stringify(this.value), () => answered.forEach((r) => r()));
        },
      });
    });
  }
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((r) => setImmediate(r));
