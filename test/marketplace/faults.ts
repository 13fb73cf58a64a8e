/**
 * Faults on demand. A rule matches requests by method and path and fires a number of times:
 *
 *   { kind, count?, method?, path?, status?, ms?, retryAfter?, phase? }
 *
 * kind: latency (delay by `ms`), rate_limit (429), server_error (`status` 500/502/503/504),
 * reset (socket destroyed, no response), truncated (part of the body, then the socket closes),
 * malformed (200 with invalid JSON), slow_boot (new instances boot in `ms`), boot_failure (new
 * instances end in `status` exited/offline/unknown), refused (a clear refusal: `status` 400-499,
 * the service's `{success: false, error, msg}`), offer_taken (a create, `PUT`/`POST
 * /api/v0/asks/{id}/`, finds its offer just rented by someone else: the offer stays taken and the
 * create answers what a taken offer answers). `count` defaults to 1; 0 means until
 * cleared. `path` is a substring of, or a regular expression over, path + query. `phase: 'after'`
 * runs the real handler first (state changes) and then spoils the response.
 */
import type { ServerResponse } from 'node:http';
import type { FailureStatus } from './model';

export const FAULT_KINDS = [
  'latency',
  'rate_limit',
  'server_error',
  'reset',
  'truncated',
  'malformed',
  'slow_boot',
  'boot_failure',
  'refused',
  'offer_taken',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRuleInput {
  kind: string;
  count?: number;
  method?: string;
  path?: string;
  status?: number | string;
  ms?: number;
  /** slow_boot only: the same as `ms` / 1000. */
  seconds?: number;
  retryAfter?: number;
  phase?: 'before' | 'after';
  /** refused only: the answer's `error` and `msg`. */
  error?: string;
  msg?: string;
}

export interface FaultRule {
  id: number;
  kind: FaultKind;
  /** Fires left; null: until cleared. */
  remaining: number | null;
  method?: string;
  path?: string;
  status?: number | string;
  ms?: number;
  retryAfter?: number;
  phase: 'before' | 'after';
  error?: string;
  msg?: string;
  fired: number;
}

/** Other names a rule's `kind` may take, and the status each implies. */
export const FAULT_ALIASES: Readonly<Record<string, { kind: FaultKind; status?: number }>> = {
  '429': { kind: 'rate_limit' },
  '500': { kind: 'server_error', status: 500 },
  '502': { kind: 'server_error', status: 502 },
  '503': { kind: 'server_error', status: 503 },
  '504': { kind: 'server_error', status: 504 },
  '5xx': { kind: 'server_error', status: 500 },
};

export class FaultError extends Error {}

export interface RequestFaults {
  delayBeforeMs: number;
  delayAfterMs: number;
  before?: FaultRule;
  after?: FaultRule;
  /** offer_taken: the offer a create names, to be taken before the create runs. */
  takeOffer?: number;
}

/** The offer a create (`PUT`/`POST /api/v0/asks/{id}/`) names. */
const CREATE = /^\/api\/v0\/asks\/(\d+)\/?(\?|$)/;

export class Faults {
  private rules: FaultRule[] = [];
  private nextId = 1;

  add(input: FaultRuleInput): FaultRule {
    const name = String(input.kind).trim().toLowerCase().replace(/-/g, '_');
    const alias = FAULT_ALIASES[name];
    const kind = (alias?.kind ?? name) as FaultKind;
    if (!FAULT_KINDS.includes(kind))
      throw new FaultError(`unknown fault kind '${input.kind}'; one of ${FAULT_KINDS.join(', ')}, 429, 500, 502, 503, 504`);
    const count = input.count ?? 1;
    if (!Number.isInteger(count) || count < 0) throw new FaultError('count must be a non-negative integer (0: until cleared)');
    const rule: FaultRule = {
      id: this.nextId++,
      kind,
      remaining: count === 0 ? null : count,
      phase: input.phase === 'after' ? 'after' : 'before',
      fired: 0,
    };
    if (input.method) rule.method = input.method.toUpperCase();
    if (input.path) rule.path = input.path;
    const status = input.status ?? alias?.status;
    if (kind === 'server_error') {
      const code = Number(status ?? 500);
      if (![500, 502, 503, 504].includes(code)) throw new FaultError('server_error status must be 500, 502, 503 or 504');
      rule.status = code;
    }
    if (kind === 'boot_failure') {
      const s = String(status ?? 'exited');
      if (!['exited', 'offline', 'unknown'].includes(s)) throw new FaultError('boot_failure status must be exited, offline or unknown');
      rule.status = s;
    }
    const ms = input.ms ?? (input.seconds !== undefined ? input.seconds * 1000 : undefined);
    if (kind === 'latency' || kind === 'slow_boot') {
      if (ms === undefined || !(ms >= 0)) throw new FaultError(`${kind} needs ms >= 0`);
      rule.ms = ms;
    }
    if (kind === 'refused') {
      const code = Number(status ?? 400);
      if (!(code >= 400 && code <= 499)) throw new FaultError('refused status must be 400 to 499');
      rule.status = code;
      rule.error = input.error ?? 'invalid_args';
      rule.msg = input.msg ?? 'The request was refused (a simulated refusal).';
    }
    if (input.retryAfter !== undefined) rule.retryAfter = input.retryAfter;
    this.rules.push(rule);
    return rule;
  }

  clear(): void {
    this.rules = [];
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  private fire(rule: FaultRule): void {
    rule.fired += 1;
    if (rule.remaining !== null) {
      rule.remaining -= 1;
      if (rule.remaining <= 0) this.rules = this.rules.filter((r) => r !== rule);
    }
  }

  private matches(rule: FaultRule, method: string, target: string): boolean {
    if (rule.method && rule.method !== method.toUpperCase()) return false;
    if (!rule.path) return true;
    if (target.includes(rule.path)) return true;
    // Paths arrive without their trailing slash; a rule may name the path as clients send it.
    if (target.replace(/^([^?]*?)\/?(\?|$)/, '$1/$2').includes(rule.path)) return true;
    try {
      return new RegExp(rule.path).test(target);
    } catch {
      return false;
    }
  }

  /** The faults for one request; firing them uses them up. */
  forRequest(method: string, target: string): RequestFaults {
    const out: RequestFaults = { delayBeforeMs: 0, delayAfterMs: 0 };
    for (const rule of [...this.rules]) {
      if (rule.kind === 'slow_boot' || rule.kind === 'boot_failure' || !this.matches(rule, method, target)) continue;
      if (rule.kind === 'offer_taken') {
        const ask = /^(PUT|POST)$/i.test(method) ? CREATE.exec(target) : null;
        if (ask && out.takeOffer === undefined) {
          out.takeOffer = Number(ask[1]);
          this.fire(rule);
        }
      } else if (rule.kind === 'latency') {
        if (rule.phase === 'after') out.delayAfterMs += rule.ms ?? 0;
        else out.delayBeforeMs += rule.ms ?? 0;
        this.fire(rule);
      } else if (!out.before && !out.after) {
        if (rule.phase === 'after') out.after = rule;
        else out.before = rule;
        this.fire(rule);
      }
    }
    return out;
  }

  /** Boot faults for a new instance. */
  takeBoot(): { bootMs?: number; doom?: FailureStatus } {
    const out: { bootMs?: number; doom?: FailureStatus } = {};
    const slow = this.rules.find((r) => r.kind === 'slow_boot');
    if (slow) {
      out.bootMs = slow.ms;
      this.fire(slow);
    }
    const failure = this.rules.find((r) => r.kind === 'boot_failure');
    if (failure) {
      out.doom = failure.status as FailureStatus;
      this.fire(failure);
    }
    return out;
  }
}

/** `KIND[:COUNT[:PARAM]]`; PARAM is ms (latency, slow_boot), status (server_error, boot_failure) or Retry-After seconds (rate_limit). */
export function parseFaultFlag(text: string): FaultRuleInput {
  const [kind = '', count, param] = text.split(':');
  const input: FaultRuleInput = { kind };
  if (count !== undefined && count !== '') input.count = Number(count);
  if (param !== undefined && param !== '') {
    const name = kind.toLowerCase().replace(/-/g, '_');
    const k = FAULT_ALIASES[name]?.kind ?? name;
    if (k === 'latency' || k === 'slow_boot') input.ms = Number(param);
    else if (k === 'rate_limit') input.retryAfter = Number(param);
    else input.status = /^\d+$/.test(param) ? Number(param) : param;
  }
  return input;
}

export interface Captured {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const PROXY_PAGE = (code: number, text: string) =>
  `<html>\r\n<head><title>${code} ${text}</title></head>\r\n<body>\r\n<center><h1>${code} ${text}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

/**
 * Writes a faulty response. `real` is the handler's response for phase 'after'. A 500 comes as
 * the service's JSON error; 502/503/504 come as the HTML page a proxy in front would send.
 */
export function writeFault(rule: FaultRule, res: ServerResponse, real?: Captured): void {
  switch (rule.kind) {
    case 'reset':
      res.socket?.destroy();
      return;
    case 'rate_limit': {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
      res.writeHead(429, headers).end(JSON.stringify({ detail: 'API requests too frequent endpoint threshold=1.0' }));
      return;
    }
    case 'server_error': {
      const status = Number(rule.status ?? 500);
      if (status === 500) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: false, error: 'server_error', msg: 'Internal Server Error' }));
      } else {
        const text = status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Temporarily Unavailable' : 'Gateway Time-out';
        res.writeHead(status, { 'content-type': 'text/html' }).end(PROXY_PAGE(status, text));
      }
      return;
    }
    case 'truncated': {
      const body = real?.body ?? Buffer.from(JSON.stringify({ success: true, msg: 'this answer is cut short on purpose' }));
      res.writeHead(real?.status ?? 200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))), () => res.socket?.destroy());
      return;
    }
    case 'refused':
      res
        .writeHead(Number(rule.status ?? 400), { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: false, error: rule.error, msg: rule.msg }));
      return;
    case 'malformed': {
      // Single quotes instead of double quotes: looks like JSON, is not.
      const original = real?.body.toString('utf8') ?? '{"success": true, "msg": "ok"}';
      const text = original.replace(/"/g, "'");
      res.writeHead(200, { 'content-type': 'application/json' }).end(text === original ? `${text}}` : text);
      return;
    }
    default:
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: false, error: 'server_error', msg: `fault ${rule.kind}` }));
  }
}
