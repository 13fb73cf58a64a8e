/**
 * The local marketplace: an HTTP server on 127.0.0.1 that behaves like the real GPU marketplace
 * API (paths, envelopes, units, errors), with real state: offers, instances that boot, credit that
 * drains, keys with permissions, and faults on demand.
 *
 *   const sim = await startMarketplace({ port: 0, apiKey: 'KEY', bootSeconds: 0.3, seed: 1 });
 *   sim.url; sim.control; await sim.stop();
 */
import { nodeNetwork } from './overlayNet';
import { createServer, type Server } from 'node:http';
import { SshdPool } from './sshd';
import { Containers } from './container';
import { addLog } from './lifecycle';
import type { AddressInfo, Socket } from 'node:net';
import { applyMinBids } from './bids';
import { generateOffers, OFFER_FIELD_KINDS, type Offer } from './catalogue';
import { Faults, type FaultRuleInput } from './faults';
import { CodeServerMirror, type CodeServerMirrorOptions } from './mirror';
import { capture, errorReply, handleRequest, send, type HttpHost } from './http';
import { advance, stopWhereCreditRanOut } from './lifecycle';
import type { Contract, InstanceState } from './model';
import { Network } from './network';
import { smiHardware } from './nvidiaSmi';
import type { RouteDef } from './router';
import { accountRoutes } from './routes/account';
import { autoscalerRoutes } from './routes/autoscaler';
import { billingRoutes } from './routes/billing';
import { createControl, type MarketplaceControl } from './routes/control';
import { instanceRoutes } from './routes/instances';
import { gpuNameRoutes } from './routes/gpuNames';
import { metricsRoutes } from './routes/metrics';
import { keyRoutes } from './routes/apiKeys';
import { offerRoutes } from './routes/offers';
import { overlayRoutes } from './routes/overlays';
import { rentRoutes } from './routes/rent';
import { secretRoutes } from './routes/secrets';
import { serverlessRoutes } from './routes/serverless';
import { sshRoutes } from './routes/ssh';
import { teamRoutes } from './routes/team';
import { templateRoutes } from './routes/templates';
import { volumeRoutes } from './routes/volumes';
import { copyRoutes } from './routes/copy';
import { cloudRoutes } from './routes/cloud';
import { Transfers } from './transfers';
import { seedBillingHistory } from './history';
import { seedInstances } from './seedInstances';
import { Store } from './state';
import { settleWorkers } from './workers';
import { Notifications } from './notifications';
import { paidByDeposit } from './prepay';
import { settlePriceIncreases } from './priceIncreases';
import { notificationRoutes } from './routes/notifications';
import { prepayRoutes } from './routes/prepay';
import { priceIncreaseRoutes } from './routes/priceIncreases';
import { WebhookSender } from './webhooks';

export interface MarketplaceOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Full-access key of the first (funded) account; random when not given. */
  apiKey?: string;
  /** Boot time of new instances; 40% provisioning, 60% loading. Default 20. */
  bootSeconds?: number;
  /** Catalogue seed. Default 1. A state file keeps the seed it was made with. */
  seed?: number;
  /** Number of offers in the catalogue. Default 300. */
  offerCount?: number;
  /** Keeps state across restarts: loaded at start, saved (debounced) on change and at stop. */
  stateFile?: string;
  /** Opening credit of the first account, in dollars. Default 250. */
  credit?: number;
  /** Email of the first account. */
  email?: string;
  /** Clock in epoch ms (default Date.now); billing and boots follow it. */
  now?: () => number;
  /** Latency added to every API request. */
  latencyMs?: number;
  /** Fault rules active from the start. */
  faults?: FaultRuleInput[];
  /** How long a requested log URL answers 404 before the log is there (wall-clock ms). Default 300. */
  logReadyMs?: number;
  /** A real sshd per running instance (needs openssh-server). Default off in process; the CLI turns it on. */
  ssh?: boolean;
  /** Run start-up scripts as local processes (bash). Default off in process; the CLI turns it on. */
  onstart?: boolean;
  /** Folders put before PATH for start-up scripts (a fake nvidia-smi, say). */
  onstartPath?: string[];
  /**
   * Instances as containers with their own namespaces (default: when containersAvailable(), i.e.
   * root and unshare); false runs each as a plain process group, as on a laptop.
   */
  isolate?: boolean;
  /** Route paths (as in the route table, e.g. `/get_autogroup_logs`) not served: they answer as an unknown route. */
  withoutRoutes?: string[];
  /**
   * Days of past billing the first account starts with (history.ts): destroyed instances and
   * volumes, monthly top-ups, all before now; its credit is still `credit`. Default 0 (none); the
   * CLI's default is 120. Only on a fresh store: a state file keeps the history it was made with.
   */
  billingHistoryDays?: number;
  /**
   * Instances the first account already rents (seedInstances.ts), for benchmarks at scale: rented
   * over the last hours from the catalogue's offers, most running now. Default 0. The catalogue grows
   * to hold them (`offerCount` at least 1.25 times this plus 300: some offers are not rentable). Only on a fresh store.
   */
  instances?: number;
  /** How many of those `instances` form clusters on overlay networks (2 to 4 nodes each). Default 0. */
  clusters?: number;
  /**
   * What the code-server release mirror under `/__mirror/` serves (mirror.ts): built, on its first
   * request, from this npm package and Node binary. Default none (every release is a 503); the CLI
   * and test/support's simulators give the one scripts/codeServer.ts installs (scripts/paths.ts).
   */
  codeServerMirror?: CodeServerMirrorOptions;
  /**
   * Webhook deliveries (webhooks.ts) may go to loopback and private addresses, accept a self-signed
   * certificate, and retry after a short backoff (200, 400, 800 ms). Default off, as the service:
   * such targets are refused at delivery. test/support's simulators and the CLI's
   * `--webhook-test-mode` (which `npm start` and F5 pass) turn it on.
   */
  webhookTestMode?: boolean;
}

export interface Marketplace {
  url: string;
  port: number;
  /** The first account and its key (the `apiKey` option). */
  accountId: number;
  apiKey: string;
  control: MarketplaceControl;
  stop(): Promise<void>;
}

/** Every route served, in matching order (test/marketplace/README.md indexes them). */
export const ROUTES: readonly RouteDef[] = [
  ...accountRoutes,
  ...keyRoutes,
  ...secretRoutes,
  ...gpuNameRoutes,
  ...sshRoutes,
  ...offerRoutes,
  ...metricsRoutes,
  ...rentRoutes,
  // Before the instance routes: their `/api/v0/instances/:id` would take `pending-price-increases` for an id.
  ...priceIncreaseRoutes,
  ...prepayRoutes,
  ...instanceRoutes,
  ...templateRoutes,
  ...volumeRoutes,
  ...copyRoutes,
  ...cloudRoutes,
  ...serverlessRoutes,
  ...autoscalerRoutes,
  ...teamRoutes,
  ...billingRoutes,
  ...overlayRoutes,
  ...notificationRoutes,
];

class Simulator implements HttpHost {
  readonly store: Store;
  readonly faults = new Faults();
  readonly network: Network;
  readonly transfers: Transfers;
  readonly offers: Offer[];
  readonly offerById: Map<number, Offer>;
  readonly offerKinds: Record<string, string>;
  readonly logs = new Map<string, { readyAt: number; text: string }>();
  readonly logReadyDelayMs: number;
  readonly server: Server;
  readonly mirror: CodeServerMirror;
  readonly notifications: Notifications;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly clock: () => number;
  readonly routes: RouteDef[];
  private port = 0;
  requestCount = 0;

  countRequest(): void {
    this.requestCount += 1;
  }

  constructor(readonly options: MarketplaceOptions) {
    this.store = new Store(options.seed ?? 1, options.bootSeconds ?? 20, options.stateFile);
    if (options.bootSeconds !== undefined) this.store.data.bootSeconds = options.bootSeconds;
    const sshd = options.ssh ? new SshdPool() : undefined;
    const report = (line: string) => console.error(line);
    const containers =
      options.ssh || options.onstart
        ? new Containers({
            keyOf: (inst) => this.store.data.keys.find((k) => k.id === inst.apiKeyId && k.deletedAt === null)?.key,
            log: (inst, line) => addLog(inst, this.now(), line),
            report,
            path: options.onstartPath,
            // Each instance's nvidia-smi answers from its offer's hardware (nvidiaSmi.ts).
            gpuOf: (inst) => {
              const offer = this.offerById.get(inst.offerId);
              return offer ? smiHardware(offer, inst.gpuLie) : undefined;
            },
            sshd,
            onstart: options.onstart ?? false,
            isolate: options.isolate,
            jupyterDirOf: (inst) => this.store.data.templates.find((t) => t.id === inst.templateId)?.jupyter_dir,
            // A node of an overlay runs on the overlay's private network (as root; see overlayNet.ts).
            networkOf: (inst) => {
              const overlay = this.store.overlayOf(inst.id);
              return overlay ? nodeNetwork(overlay, `c-${inst.id}`) : undefined;
            },
            // Its jobs and watchdog reach this simulator's API from inside the node.
            loopbackPorts: () => [this.port],
          })
        : undefined;
    this.network = new Network(this.store.data.seed, containers, sshd, report);
    const sender = new WebhookSender({ testMode: options.webhookTestMode ?? false, now: () => this.now(), report });
    this.notifications = new Notifications(() => this.store.data, sender, report);
    this.network.onStopped = (inst, at, reason) => this.notifications.instanceStopped(inst, reason, at);
    this.transfers = new Transfers(
      containers,
      (id) => this.store.instance(id),
      () => this.now(),
    );
    if (options.ssh || options.onstart) {
      // Real processes (sshd, start-up scripts) start when an instance reaches running, observed or
      // not, as on the service: move instances along on a clock, not only when a request looks.
      const ticker = setInterval(() => this.tick(), 500);
      ticker.unref();
      this.timers.add(ticker);
    }
    // Seeded instances need offers of their own: the catalogue grows to hold them (and only then).
    const seeded = options.instances ?? 0;
    const offerCount = options.offerCount ?? 300;
    this.offers = generateOffers(seeded > 0 ? Math.max(offerCount, Math.ceil(seeded * 1.25) + 300) : offerCount, this.store.data.seed);
    this.offerById = new Map(this.offers.map((o) => [o.id, o]));
    // Minimum bids raised by outbids earlier (bids.ts) hold across a restart.
    applyMinBids(this);
    // Each field typed from its definition, not from one offer (whose nullable fields may be null).
    this.offerKinds = OFFER_FIELD_KINDS;
    this.logReadyDelayMs = options.logReadyMs ?? 300;
    this.mirror = new CodeServerMirror(options.codeServerMirror);
    this.clock = options.now ?? Date.now;
    this.routes = ROUTES.filter((r) => !options.withoutRoutes?.includes(r.path));
    if (options.latencyMs) this.faults.add({ kind: 'latency', ms: options.latencyMs, count: 0 });
    for (const rule of options.faults ?? []) this.faults.add(rule);
    this.server = createServer((req, res) => {
      handleRequest(this, req, res).catch((error: unknown) => {
        console.error('marketplace: request failed:', error);
        if (!res.headersSent && !res.destroyed) send(res, capture(errorReply(error)));
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  now(): number {
    return this.clock() + this.store.data.clockOffsetMs;
  }

  baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  live(id: number): { inst: InstanceState; contract: Contract } | undefined {
    this.tick();
    const inst = this.store.instance(id);
    return inst ? { inst, contract: this.store.contract(id) } : undefined;
  }

  /**
   * Applies due transitions (instances, serverless workers), then stops the running instances of
   * accounts whose credit ran out, at the moment it ran out (estimated from the current burn rate).
   */
  tick(): void {
    const now = this.now();
    settleWorkers(this.store, now);
    let changed = false;
    // One look-up table per tick: an account with thousands of instances must not cost a search per instance.
    const contracts = new Map(this.store.data.contracts.map((c) => [c.id, c]));
    const contractOf = (id: number) => contracts.get(id) ?? this.store.contract(id);
    // Accepted price increases take effect first, so a boot after one bills at its new price.
    changed = settlePriceIncreases(this.store.data, contractOf, now) || changed;
    for (const inst of this.store.data.instances) changed = advance(inst, contractOf(inst.id), now, this.network) || changed;
    // A prepaid instance whose deposit still pays keeps running when the credit runs out (prepay.ts).
    const paidFor = (id: number) => paidByDeposit(this.store.data, contractOf, id, now);
    changed = stopWhereCreditRanOut(this.store.data, contractOf, now, this.network, paidFor) || changed;
    this.notifications.checkCredit(now);
    if (changed) this.store.changed();
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  control!: MarketplaceControl;

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.mirror.close();
    this.notifications.sender.close();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await closed;
    this.transfers.close();
    await this.network.close();
    this.store.flush();
  }
}

/** Starts the marketplace on 127.0.0.1. */
export async function startMarketplace(options: MarketplaceOptions = {}): Promise<Marketplace> {
  const sim = new Simulator(options);
  sim.control = createControl(sim);
  const fresh = sim.store.fresh;
  const history = fresh && (options.billingHistoryDays ?? 0) > 0;
  const credit = options.credit ?? 250;
  const { accountId, apiKey } = sim.store.openingAccount({
    email: options.email ?? 'demo@example.test',
    // With history, the opening credit comes after it (history.ts).
    credit: history ? 0 : credit,
    key: options.apiKey,
    now: sim.now(),
  });
  if (history) seedBillingHistory(sim.store, { accountId, offers: sim.offers, days: options.billingHistoryDays!, credit, now: sim.now() });
  if (fresh && (options.instances ?? 0) > 0)
    seedInstances(sim, { accountId, instances: options.instances!, clusters: options.clusters ?? 0, now: sim.now() });
  sim.store.flush();
  const port = await sim.listen(options.port ?? 0);
  return { url: sim.baseUrl(), port, accountId, apiKey, control: sim.control, stop: () => sim.close() };
}
