/** The simulator's stored records. Everything here is plain JSON so that state files round-trip. */
import type { Permissions } from '../../src/core/api/permissions';
import type { GpuLie } from './nvidiaSmi';

/** Times are epoch milliseconds of the simulator's clock unless a name says otherwise. */
export type Ms = number;

export interface Account {
  id: number;
  email: string;
  username: string;
  fullname: string | null;
  createdAt: Ms;
}

export interface ApiKeyRecord {
  id: number;
  accountId: number;
  key: string;
  name: string | null;
  /** null: full access. */
  permissions: Permissions | null;
  keyParams: unknown;
  /** Set for an instance API key: it works only on that instance. */
  instanceId: number | null;
  createdAt: Ms;
  deletedAt: Ms | null;
}

export interface SshKeyRecord {
  id: number;
  accountId: number;
  publicKey: string;
  createdAt: Ms;
  deletedAt: Ms | null;
}

/** A credit top-up; the opening credit of an account is one. */
export interface TopUp {
  id: number;
  accountId: number;
  at: Ms;
  amount: number;
  service: string;
  description: string;
}

/** A stretch of billing at a fixed $/hour; `end` null while it runs. */
export interface Segment {
  kind: 'gpu' | 'disk';
  rate: number;
  start: Ms;
  end: Ms | null;
}

/** What is billed for one instance or volume, kept after it is destroyed. */
export interface Contract {
  id: number;
  accountId: number;
  type: 'instance' | 'volume';
  start: Ms;
  end: Ms | null;
  label: string | null;
  templateId: number | null;
  segments: Segment[];
}

/**
 * Where an instance is in its life. `provisioning`, `scheduling` (restart waiting for the GPU)
 * and `rebooting` lead to `loading`, which leads to `running`, or to `failed` when the instance is
 * doomed by a boot-failure fault.
 */
export type Phase = 'provisioning' | 'scheduling' | 'rebooting' | 'loading' | 'running' | 'stopped' | 'failed';
export type FailureStatus = 'exited' | 'offline' | 'unknown';

export interface SshEndpoint {
  sshHost: string;
  sshIdx: string;
  sshPort: number;
  publicIp: string;
  directPortStart: number;
  directPortEnd: number;
  /** Container port ("22/tcp") -> host port, exposed once the instance runs. */
  portMap: Record<string, number>;
}

export interface InstanceSshKey {
  id: number;
  name: string;
  publicKey: string;
}

export interface LogLine {
  at: Ms;
  text: string;
}

export interface InstanceState {
  id: number;
  accountId: number;
  offerId: number;
  phase: Phase;
  phaseSince: Ms;
  /** Why it stopped, when it did. */
  stopReason: string | null;
  failure: FailureStatus | null;
  /** A boot-failure fault marked it: every boot ends in this status. */
  doom: FailureStatus | null;
  bootMs: number;
  bootCount: number;
  createdAt: Ms;
  runningSince: Ms | null;
  image: string;
  onstart: string | null;
  env: Array<[string, string]>;
  args: string[];
  runtype: string;
  label: string | null;
  templateId: number | null;
  templateHashId: string | null;
  templateName: string | null;
  diskGb: number;
  isBid: boolean;
  /** $/hour of the GPU part: the offer's price on demand, the bid for an interruptible instance (bids.ts changes it). */
  gpuRate: number;
  diskRate: number;
  apiKeyId: number;
  clientId: string | null;
  sshKeys: InstanceSshKey[];
  endpoint: SshEndpoint;
  volumeIds: number[];
  jupyterToken: string;
  log: LogLine[];
  /** A copy's progress or outcome (transfers.ts), shown as `status_msg` while the instance runs. */
  transferNote?: string | null;
  /** Stopped by the service for a higher bid (bids.ts); its renter still wants it running. Any other stop or start clears it. */
  outbid?: boolean;
  /** How its nvidia-smi lies (`POST /__control/instances/:id/gpu`, nvidiaSmi.ts); absent: it tells the truth. */
  gpuLie?: GpuLie;
  /** Its contract's end (epoch seconds) once a host's price increase was accepted (priceIncreases.ts); absent: its offer's end when rented. */
  endDate?: number;
}

export interface TemplateRecord {
  id: number;
  hash_id: string;
  creator_id: number;
  name: string;
  image: string;
  tag: string;
  desc: string | null;
  readme: string | null;
  readme_visible: boolean;
  env: string;
  onstart: string | null;
  runtype: string;
  args_str: string | null;
  ssh_direct: boolean;
  use_ssh: boolean;
  jup_direct: boolean;
  jupyter_dir: string | null;
  use_jupyter_lab: boolean;
  docker_login_repo: string | null;
  docker_login_user: string | null;
  docker_login_pass: string | null;
  href: string | null;
  repo: string | null;
  extra_filters: Record<string, unknown>;
  recommended_disk_space: number;
  private: boolean;
  volume_info: unknown;
  created_at: number;
  count_created: number;
  recommended: boolean;
}

export interface VolumeRecord {
  id: number;
  accountId: number;
  offerId: number;
  machineId: number;
  name: string | null;
  sizeGb: number;
  rate: number;
  createdAt: Ms;
  instanceIds: number[];
}

export interface EndpointRecord {
  id: number;
  accountId: number;
  fields: Record<string, unknown>;
  apiKey: string;
  createdAt: Ms;
}

export interface WorkerGroupRecord {
  id: number;
  accountId: number;
  endpointId: number;
  fields: Record<string, unknown>;
  apiKey: string;
  createdAt: Ms;
}

/** One instance the autoscaler runs for a worker group (the simulator does not boot a container for it). */
export interface WorkerRecord {
  id: number;
  accountId: number;
  groupId: number;
  endpointId: number;
  createdAt: Ms;
  /** Loading until then, idle after. */
  readyAt: Ms;
  /** Set once the log has said it is ready. */
  announced?: boolean;
}

/** A timestamped log of an endpoint (`endpoint:<id>`) or a worker group (`group:<id>`). */
export interface ServerlessLog {
  key: string;
  lines: string[];
}

export interface RoleRecord {
  id: number;
  accountId: number;
  name: string;
  permissions: Permissions | Record<string, unknown>;
}

export interface MemberRecord {
  id: number;
  teamAccountId: number;
  username: string;
  email: string;
  fullname: string | null;
  roles: string[];
}

/** An environment variable of an account (`/api/v0/secrets/`); `key` is stored upper-cased. */
export interface SecretRecord {
  accountId: number;
  key: string;
  value: string;
  createdAt: Ms;
  updatedAt: Ms;
}

/**
 * An overlay network (`/api/v0/overlay/`): a private network over one physical cluster that the
 * account's instances on that cluster join. `subnet` numbers its `internal_subnet`
 * (`10.77.<subnet>.0/24`); each member holds a host number in it (1 is `.1`), kept until it leaves.
 */
export interface OverlayRecord {
  id: number;
  accountId: number;
  name: string;
  clusterId: number;
  subnet: number;
  createdAt: Ms;
  /** In join order. */
  members: Array<{ instanceId: number; host: number }>;
}

/**
 * A host's higher price for a running contract (priceIncreases.ts). The wire fields are the row the
 * pending list shows (service notes §15.1): $ per second for the `costpersec` pairs, $ per GB for
 * bandwidth, epoch seconds for the dates; a null `new_` value leaves that part of the price as it is.
 */
export interface PriceIncreaseRecord {
  pending_price_increase_id: number;
  contract_id: number;
  host_id: number;
  old_gpu_costpersec: number | null;
  new_gpu_costpersec: number | null;
  old_disk_ram_costpersec: number | null;
  new_disk_ram_costpersec: number | null;
  old_bwu_cost: number | null;
  new_bwu_cost: number | null;
  old_bwd_cost: number | null;
  new_bwd_cost: number | null;
  old_platform_fee: number | null;
  new_platform_fee: number | null;
  contract_end_date: number;
  ask_end_date: number | null;
  created_at: number;
  accountId: number;
  status: 'pending' | 'accepted' | 'rejected' | 'expired';
  answeredAt: Ms | null;
  /** Accepted: when the new price took effect on the instance (its old contract end); null until then. */
  appliedAt: Ms | null;
  /** The body of the request that answered it, as sent (for the control API). */
  answerBody?: unknown;
}

/** One prepayment on an instance (prepay.ts): the money, and the months and discount it bought then. */
export interface Deposit {
  id: number;
  at: Ms;
  amount: number;
  months: number;
  discountRate: number;
}

/** Money prepaid on an on-demand instance for a discount (a reservation; prepay.ts, reservations.ts). */
export interface ReservationRecord {
  instanceId: number;
  accountId: number;
  deposits: Deposit[];
  /** Set when the instance was destroyed and the refundable part went back to the account's credit. */
  closedAt?: Ms;
}

/** A notification webhook of an account (webhooks.ts, routes/notifications.ts). `eventTypes` are full keys (`client:outbid`). */
export interface WebhookRecord {
  id: number;
  accountId: number;
  name: string | null;
  url: string;
  eventTypes: string[];
  /** Signs every delivery (`X-Vast-Signature-256`); shown only at create and rotate. */
  secret: string;
  createdAt: Ms;
  updatedAt: Ms;
}

/** Context (`client`, `host`) -> slug (`outbid`) -> channel (`email`, `webhooks`) -> on. */
export type NotificationPrefs = Record<string, Record<string, Record<string, boolean>>>;

export interface StoreData {
  version: 1;
  seed: number;
  ids: Record<string, number>;
  bootSeconds: number;
  clockOffsetMs: number;
  accounts: Account[];
  keys: ApiKeyRecord[];
  sshKeys: SshKeyRecord[];
  topUps: TopUp[];
  contracts: Contract[];
  instances: InstanceState[];
  templates: TemplateRecord[];
  volumes: VolumeRecord[];
  endpoints: EndpointRecord[];
  workerGroups: WorkerGroupRecord[];
  /** Absent in state files written before workers existed. */
  workers?: WorkerRecord[];
  serverlessLogs?: ServerlessLog[];
  roles: RoleRecord[];
  members: MemberRecord[];
  /** Absent in state files written before secrets existed. */
  secrets?: SecretRecord[];
  /** Absent in state files written before overlays existed. */
  overlays?: OverlayRecord[];
  /** Machine id → its minimum bid as an outbid raised it (bids.ts); absent before bids were modelled. */
  minBids?: Record<string, number>;
  /** Hosts' price increases, pending and answered (priceIncreases.ts); absent before they were modelled. */
  priceIncreases?: PriceIncreaseRecord[];
  /** Prepaid instances (prepay.ts); absent before reservations were modelled. */
  reservations?: ReservationRecord[];
  /** Notification webhooks (notifications.ts); absent before webhooks were modelled. */
  webhooks?: WebhookRecord[];
  /** Notification preferences an account changed, over the types' defaults (notifications.ts). */
  notificationPrefs?: Array<{ accountId: number; prefs: NotificationPrefs }>;
}
