import type { Instance } from '../api/instances';
import {
  describe,
  presentTooltip,
  presentWithParts,
  uptimeSeconds,
  type DescriptionParts,
  type InstancePresentation,
  type PresentOptions,
  type RowExtra,
} from './present';

interface Row {
  instance: Instance;
  /** What the row shows beside the record when it was last presented (`present` compares them). */
  cost: number | undefined;
  ready: boolean;
  /** The extra text's key (a contract's increase or end), '' for none. */
  extra: string;
  uptime: number;
  /** What the description says from the record (undefined for an unreadable one). */
  parts: DescriptionParts | undefined;
  p: InstancePresentation;
  tooltip?: string;
  extraText?: RowExtra;
}

/**
 * A row as shown; its tooltip is built on the first hover, from the record the row holds then. A
 * class, so that thousands of rows share one shape and one getter (an object literal with a getter
 * of its own is a dictionary, several times larger).
 */
class Presented implements InstancePresentation {
  constructor(
    readonly label: string,
    readonly description: string,
    readonly icon: InstancePresentation['icon'],
    readonly contextValue: string,
    readonly phase: InstancePresentation['phase'],
    readonly accessibilityLabel: string,
    private readonly row: Row,
  ) {}

  get tooltip(): string {
    return (this.row.tooltip ??= presentTooltip(this.row.instance, this.row.extraText));
  }
}

/**
 * The Instances view's rows from one poll to the next: a row is presented again only when its
 * record or its readiness changed, and only its description is made again when the uptime as shown
 * or the cost so far moved. An account with thousands of instances changes a few between polls, so
 * a poll re-presents a few rows instead of all of them. Ids no longer listed are forgotten at each
 * `retain`.
 */
export class PresentationCache {
  private readonly rows = new Map<number, Row>();

  present(instance: Instance, options: PresentOptions): InstancePresentation {
    const cost = options.costSoFar;
    const ready = options.sshReady === true;
    const extra = options.extra?.key ?? '';
    const uptime = uptimeShown(instance, options.nowMs);
    const hit = this.rows.get(instance.id);
    if (hit && hit.ready === ready && hit.extra === extra && (hit.instance === instance || sameRecord(hit.instance, instance))) {
      // The newest record is kept (the poller's snapshot holds it too), so no older copy stays alive.
      hit.instance = instance;
      if (hit.uptime === uptime && hit.cost === cost) return hit.p;
      // The same record, its uptime or cost moved: only the description says otherwise (rows under
      // an hour old move every second).
      if (hit.parts) {
        const was = hit.p;
        hit.uptime = uptime;
        hit.cost = cost;
        hit.p = new Presented(
          was.label,
          describe(hit.parts, instance, options),
          was.icon,
          was.contextValue,
          was.phase,
          was.accessibilityLabel,
          hit,
        );
        return hit.p;
      }
    }
    const { p, parts } = presentWithParts(instance, options);
    const row: Row = { instance, cost, ready, extra, uptime, parts, p, extraText: options.extra };
    row.p = new Presented(p.label, p.description, p.icon, p.contextValue, p.phase, p.accessibilityLabel, row);
    this.rows.set(instance.id, row);
    return row.p;
  }

  /** Keeps the rows of these instances only (the list just shown). */
  retain(instances: readonly Instance[]): void {
    if (this.rows.size <= instances.length && instances.every((i) => this.rows.has(i.id))) return;
    const ids = new Set(instances.map((i) => i.id));
    for (const id of this.rows.keys()) if (!ids.has(id)) this.rows.delete(id);
  }

  /** Forgets every row (another account, signed out). */
  clear(): void {
    this.rows.clear();
  }

  get size(): number {
    return this.rows.size;
  }
}

/**
 * The uptime as the row shows it, as a number that changes exactly when formatDuration's text does
 * (seconds under an hour, minutes under a day, hours after), -1 for none: compared on every row
 * of every poll, so no text is built for it.
 */
export function uptimeShown(instance: Instance, nowMs: number): number {
  const uptime = uptimeSeconds(instance, nowMs);
  if (uptime === undefined) return -1;
  const s = Math.floor(uptime);
  if (s < 3600) return s;
  if (s < 86_400) return 3600 + Math.floor(s / 60);
  return 86_400 + Math.floor(s / 3600);
}

/** Whether two records of one instance say the same: every field equal (nested values, such as the port map, by their JSON). */
export function sameRecord(a: Instance, b: Instance): boolean {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  const keys = Object.keys(ra);
  if (keys.length !== Object.keys(rb).length) return false;
  for (const k of keys) {
    const x = ra[k];
    const y = rb[k];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null || !(k in rb)) return false;
    if (JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}
