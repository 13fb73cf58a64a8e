import { AccountApi, ApiKeysApi, SshKeysApi } from './account';
import { BillingApi } from './billing';
import { ClustersApi } from './clusters';
import { ContractsApi } from './contracts';
import { CopyApi } from './copy';
import { InstancesApi } from './instances';
import { MetricsApi } from './metrics';
import { OffersApi } from './offers';
import { SecretsApi } from './secrets';
import { ServerlessApi } from './serverless';
import { TeamApi } from './team';
import { TemplatesApi } from './templates';
import { Transport, type TransportOptions } from './transport';
import { VolumesApi } from './volumes';
import { WebhooksApi } from './webhooks';

export { DEFAULT_BASE_URL } from './limits';

export type ClientOptions = TransportOptions;

/**
 * The typed client for the marketplace API: one method per endpoint, grouped by area.
 * It holds no key: it asks `getApiKey` for one per request, so the key lives only in SecretStorage.
 */
export class GpuRentalClient {
  readonly account: AccountApi;
  readonly apiKeys: ApiKeysApi;
  readonly sshKeys: SshKeysApi;
  /** The account's environment variables; names only come back. */
  readonly secrets: SecretsApi;
  readonly offers: OffersApi;
  readonly instances: InstancesApi;
  readonly templates: TemplatesApi;
  readonly volumes: VolumesApi;
  readonly serverless: ServerlessApi;
  readonly team: TeamApi;
  readonly billing: BillingApi;
  readonly copy: CopyApi;
  /** GPU supply and the going price per GPU model (read-only market data). */
  readonly metrics: MetricsApi;
  /** The account's clusters and the overlay networks that join instances on one of them. */
  readonly clusters: ClustersApi;
  /** A contract's host price increases, and prepaying an instance for a discount (a reservation). */
  readonly contracts: ContractsApi;
  /** The account's notification webhooks (Notify Me) and the notification types they subscribe to. */
  readonly webhooks: WebhooksApi;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    const t = this.transport;
    this.account = new AccountApi(t);
    this.apiKeys = new ApiKeysApi(t);
    this.sshKeys = new SshKeysApi(t);
    this.secrets = new SecretsApi(t);
    this.offers = new OffersApi(t);
    this.instances = new InstancesApi(t);
    this.templates = new TemplatesApi(t);
    this.volumes = new VolumesApi(t);
    this.serverless = new ServerlessApi(t);
    this.team = new TeamApi(t);
    this.billing = new BillingApi(t);
    this.copy = new CopyApi(t);
    this.metrics = new MetricsApi(t);
    this.clusters = new ClustersApi(t);
    this.contracts = new ContractsApi(t);
    this.webhooks = new WebhooksApi(t);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  toString(): string {
    return `GpuRentalClient(${this.baseUrl})`;
  }
}
