/**
 * How setting values are read safely, without `vscode`: which layer counts, and the bounds every
 * numeric setting is clamped to. package.json declares the same bounds (a manifest test keeps them
 * equal), but a hand-edited settings.json ignores the schema, so the reader clamps as well.
 */
import { SETTINGS } from './ids';

/** The layers of one setting, as `WorkspaceConfiguration.inspect()` reports them (the ones read here). */
export interface SettingLayers<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/**
 * The user's own value, else the default; never a workspace's or a folder's. Money and identity
 * settings are application-scoped, so VS Code does not apply a workspace value to them anyway; this
 * keeps a cloned repository's `.vscode/settings.json` from weakening them even if it did.
 */
export function userOrDefault<T>(layers: SettingLayers<T> | undefined): T | undefined {
  if (!layers) return undefined;
  return layers.globalValue !== undefined ? layers.globalValue : layers.defaultValue;
}

export interface NumberRule {
  /** What a missing, non-numeric, NaN or too-small value reads as. */
  fallback: number;
  /** The smallest value taken as it is; below it the fallback applies. */
  min: number;
  /** Values above are clamped down to it (this includes a JSON number too big for a double). */
  max: number;
  /** `min` itself is refused too (e.g. idle minutes: any positive fraction, never 0). */
  minExclusive?: boolean;
}

/** Longest idle time, in minutes: one week. The host watchdog refuses more (its arithmetic would overflow). */
export const MAX_IDLE_MINUTES = 10_080;
/** The largest spend cap, in $/h; a bigger number is read as this. */
export const MAX_HOURLY_SPEND = 100_000;

/**
 * The bounds of every numeric setting. `min`/`max` are also package.json's `minimum`/`maximum`,
 * except where a fraction below the schema's minimum is accepted for tests (idle minutes).
 */
export const NUMBER_RULES = {
  [SETTINGS.pollIntervalSeconds]: { fallback: 10, min: 2, max: 600 },
  [SETTINGS.sshReadyTimeoutSeconds]: { fallback: 180, min: 5, max: 3600 },
  [SETTINGS.lowCreditHours]: { fallback: 24, min: 0, max: 1_000_000 },
  [SETTINGS.lowCreditAmount]: { fallback: 5, min: 0, max: 1_000_000 },
  // Fractions of a minute are taken (the integration tests use seconds' worth); 0 or less is the default.
  [SETTINGS.idleStopMinutes]: { fallback: 30, min: 0, minExclusive: true, max: MAX_IDLE_MINUTES },
  [SETTINGS.idleGpuThreshold]: { fallback: 5, min: 0, max: 100 },
  [SETTINGS.idleCountdownSeconds]: { fallback: 60, min: 0, max: 3600 },
  // Rent Best Match's attempts: each one is a rent; MAX_FAILOVER_ATTEMPTS in core/rent/failover.ts.
  [SETTINGS.rentFailoverAttempts]: { fallback: 3, min: 1, max: 10 },
  // The time between two background search requests of the watched searches, all of them together.
  [SETTINGS.watchIntervalMinutes]: { fallback: 5, min: 1, max: 1440 },
  // Days before a contract's end that its row and a notice say so; 0 turns both off.
  [SETTINGS.contractEndNoticeDays]: { fallback: 3, min: 0, max: 365 },
} as const satisfies Record<string, NumberRule>;

/** A numeric setting's value within its bounds: see NumberRule. */
export function boundedNumber(raw: unknown, rule: NumberRule): number {
  if (typeof raw !== 'number' || Number.isNaN(raw)) return rule.fallback;
  if (raw < rule.min || (rule.minExclusive && raw === rule.min)) return rule.fallback;
  return Math.min(raw, rule.max);
}

/** The spend cap: empty, 0, negative or not a number is no cap; above MAX_HOURLY_SPEND is MAX_HOURLY_SPEND. */
export function spendCap(raw: unknown): number | undefined {
  if (typeof raw !== 'number' || Number.isNaN(raw) || raw <= 0) return undefined;
  return Math.min(raw, MAX_HOURLY_SPEND);
}
