import * as vscode from 'vscode';
import type { ApiKey, SshKey } from '../../core/api/account';
import type { TeamMember, TeamRole } from '../../core/api/team';
import type { Template } from '../../core/api/templates';
import type { Volume } from '../../core/api/volumes';
import type { Endpoint, ServerlessWorker, WorkerGroup } from '../../core/api/serverless';
import { ApiError } from '../../core/api/errors';
import { describeCategory, scopeSummary } from '../../core/account/apiKeys';
import { COMMANDS } from '../../core/ids';
import type { Session } from '../../core/session/session';
import type { BillingEntry } from '../../core/api/billing';
import { summarise } from '../../core/billing/report';
import { UnreadableItem, unreadableRow } from './unreadable';
import { formatDollars } from '../../core/format';

/** Every charge and invoice line of the last `days` days (up to 20 pages each: charges 500 a page, invoices 100, the service's most). */
export async function readBilling(
  session: Session,
  days: number,
  nowMs = Date.now(),
): Promise<{ charges: BillingEntry[]; invoices: BillingEntry[]; from: number; to: number }> {
  const to = Math.ceil(nowMs / 1000);
  const from = to - days * 86_400;
  const all = async (read: (after?: string) => Promise<{ results: BillingEntry[]; next_token?: string | null }>) => {
    const out: BillingEntry[] = [];
    let after: string | undefined;
    for (let page = 0; page < 20; page++) {
      const res = await read(after);
      out.push(...res.results);
      if (!res.next_token) break;
      after = res.next_token;
    }
    return out;
  };
  const client = session.client;
  const [charges, invoices] = await Promise.all([
    all((afterToken) => client.billing.charges({ from, to, limit: 500, afterToken })),
    all((afterToken) => client.billing.invoices({ from, to, limit: 500, afterToken })),
  ]);
  return { charges, invoices, from, to };
}

export type Section = 'apiKeys' | 'sshKeys' | 'templates' | 'volumes' | 'serverless' | 'team' | 'billing';

const SECTIONS: Record<Section, { label: string; icon: string; context: string }> = {
  apiKeys: { label: 'API Keys', icon: 'key', context: 'apiKeys' },
  sshKeys: { label: 'SSH Keys', icon: 'lock', context: 'sshKeys' },
  templates: { label: 'Templates', icon: 'symbol-class', context: 'templates' },
  volumes: { label: 'Volumes', icon: 'database', context: 'volumes' },
  serverless: { label: 'Serverless', icon: 'cloud', context: 'serverless' },
  team: { label: 'Team', icon: 'organization', context: 'team' },
  billing: { label: 'Billing', icon: 'credit-card', context: 'billing' },
};

/** How far back the Billing section and report look. */
export const BILLING_DAYS = 30;

export class SectionItem extends vscode.TreeItem {
  constructor(readonly section: Section) {
    super(SECTIONS[section].label, vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `section-${section}`;
    this.iconPath = new vscode.ThemeIcon(SECTIONS[section].icon);
    this.contextValue = SECTIONS[section].context;
  }
}

export class ApiKeyItem extends vscode.TreeItem {
  constructor(
    readonly key: ApiKey,
    readonly inUse: boolean,
  ) {
    super(key.unreadable ? `#${key.id} (details unreadable)` : key.name || `key ${key.id}`, vscode.TreeItemCollapsibleState.None);
    this.id = `apikey-${key.id}`;
    // An unreadable key's rights are not known: never call it full access.
    this.description = `${key.unreadable ? 'rights unknown' : scopeSummary(key)}${inUse ? ' · in use here' : ''}`;
    const categories = key.rights ? Object.keys(key.rights.api) : undefined;
    this.tooltip = new vscode.MarkdownString(
      [
        `**${key.name || `API key ${key.id}`}** (id ${key.id})`,
        categories ? categories.map((c) => `- \`${c}\`: ${describeCategory(c)}`).join('\n') : 'Full access to the account.',
        inUse ? '_GPU Rental is signed in with this key; it cannot be deleted here._' : '',
      ].join('\n\n'),
    );
    if (key.unreadable)
      this.tooltip = `API key ${key.id}: the service's record for it could not be read (Show Logs says which field). It can still be deleted.`;
    this.iconPath = new vscode.ThemeIcon(inUse ? 'pass-filled' : key.unreadable ? 'warning' : 'key');
    this.contextValue = inUse ? 'apiKeyInUse' : 'apiKey';
  }
}

export class SshKeyItem extends vscode.TreeItem {
  constructor(readonly key: SshKey) {
    const [type, body, ...comment] = key.public_key.split(/\s+/);
    super(
      key.unreadable ? `#${key.id} (details unreadable)` : comment.join(' ') || key.name || `key ${key.id}`,
      vscode.TreeItemCollapsibleState.None,
    );
    this.id = `sshkey-${key.id}`;
    this.description = key.unreadable ? 'public key unknown' : `${type ?? ''} …${(body ?? '').slice(-12)}`;
    this.tooltip = key.unreadable
      ? `SSH key ${key.id}: the service's record for it could not be read (Show Logs says which field). It can still be deleted.`
      : key.public_key;
    this.iconPath = new vscode.ThemeIcon(key.unreadable ? 'warning' : 'lock');
    this.contextValue = 'sshKey';
  }
}

export class TemplateItem extends vscode.TreeItem {
  constructor(readonly template: Template) {
    super(template.name, vscode.TreeItemCollapsibleState.None);
    this.id = `template-${template.id}`;
    this.description = `${template.image ?? ''}${template.tag ? `:${template.tag}` : ''} · ${template.hash_id.slice(0, 8)}`;
    this.tooltip = new vscode.MarkdownString(
      [
        `**${template.name}** (hash \`${template.hash_id}\`)`,
        `Image: \`${template.image ?? ''}${template.tag ? `:${template.tag}` : ''}\``,
        template.recommended_disk_space ? `Disk: ${template.recommended_disk_space} GB` : '',
        template.onstart ? `Start-up script: ${template.onstart.length} characters` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    this.iconPath = new vscode.ThemeIcon('symbol-class');
    this.contextValue = 'template';
  }
}

export class VolumeItem extends vscode.TreeItem {
  constructor(readonly volume: Volume) {
    super(
      volume.unreadable ? `#${volume.id} (details unreadable)` : volume.label || `volume ${volume.id}`,
      vscode.TreeItemCollapsibleState.None,
    );
    this.id = `volume-${volume.id}`;
    const used = volume.instances?.length ? ` · used by #${volume.instances.join(', #')}` : '';
    const cost = volume.storage_total_cost ? ` · ${formatDollars(volume.storage_total_cost)}/h` : '';
    this.description = `${volume.disk_space ?? '?'} GB${cost} · ${volume.status ?? 'unknown'}${used}`;
    this.tooltip = volume.unreadable
      ? `Volume ${volume.id}: the service's record for it could not be read (Show Logs says which field). It bills until deleted, and can still be deleted (the service refuses while an instance uses it).`
      : `Volume ${volume.id}${volume.geolocation ? ` in ${volume.geolocation}` : ''}, machine ${volume.machine_id ?? '?'}. It bills until deleted.`;
    if (volume.unreadable) this.description = 'details unreadable';
    this.iconPath = new vscode.ThemeIcon(volume.unreadable ? 'warning' : 'database');
    this.contextValue = volume.instances?.length ? 'volumeInUse' : 'volume';
  }
}

export class EndpointItem extends vscode.TreeItem {
  constructor(
    readonly endpoint: Endpoint,
    readonly groups: WorkerGroup[],
  ) {
    super(endpoint.endpoint_name, groups.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `endpoint-${endpoint.id}`;
    this.description = `${endpoint.endpoint_state ?? 'active'} · workers ${endpoint.cold_workers ?? 0}-${endpoint.max_workers ?? '?'} · target ${Math.round((endpoint.target_util ?? 0) * 100)} % · ${groups.length} group${groups.length === 1 ? '' : 's'}`;
    this.iconPath = new vscode.ThemeIcon('cloud');
    this.contextValue = 'endpoint';
  }
}

export class WorkerGroupItem extends vscode.TreeItem {
  constructor(readonly group: WorkerGroup) {
    super(`worker group ${group.id}`, vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `workergroup-${group.id}`;
    this.description = `template ${(group.template_hash ?? String(group.template_id ?? '?')).slice(0, 8)} · workers ${group.cold_workers ?? 0}-${group.max_workers ?? '?'}${group.gpu_ram ? ` · ${group.gpu_ram} GB GPU RAM` : ''}`;
    this.iconPath = new vscode.ThemeIcon('server-process');
    this.contextValue = 'workerGroup';
  }
}

/** The workers an endpoint's autoscaler runs now, over all its groups; read when expanded. */
export class EndpointWorkersItem extends vscode.TreeItem {
  constructor(readonly endpoint: Endpoint) {
    super('Workers', vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `endpoint-${endpoint.id}-workers`;
    this.iconPath = new vscode.ThemeIcon('server');
    this.tooltip = 'The instances serving this endpoint now. Expand again (or Refresh) to read them anew.';
    this.contextValue = 'endpointWorkers';
  }
}

export class WorkerItem extends vscode.TreeItem {
  constructor(
    readonly worker: ServerlessWorker,
    owner: string,
  ) {
    super(`worker #${worker.id}`, vscode.TreeItemCollapsibleState.None);
    this.id = `${owner}-worker-${worker.id}`;
    this.description = workerSummary(worker);
    this.tooltip = `${this.description}${worker.url ? `\n${worker.url}` : ''}${worker.created_at ? `\nsince ${new Date(typeof worker.created_at === 'number' ? worker.created_at * 1000 : worker.created_at).toLocaleString()}` : ''}`;
    this.iconPath = new vscode.ThemeIcon(worker.status === 'idle' || worker.status === 'running' ? 'pass' : 'loading~spin');
    this.contextValue = 'worker';
  }
}

/** One line about a worker: status, load and requests, as far as the service says. */
export function workerSummary(w: ServerlessWorker): string {
  const parts = [w.status ?? 'unknown'];
  if (typeof w.cur_load === 'number') parts.push(`load ${Math.round(w.cur_load * 10) / 10}`);
  if (typeof w.reqs_working === 'number') parts.push(`${w.reqs_working} request${w.reqs_working === 1 ? '' : 's'} in flight`);
  if (typeof w.perf === 'number') parts.push(`perf ${Math.round(w.perf)}`);
  return parts.join(' · ');
}

export class TeamMemberItem extends vscode.TreeItem {
  constructor(readonly member: TeamMember) {
    super(member.email || member.username || `user ${member.id}`, vscode.TreeItemCollapsibleState.None);
    this.id = `member-${member.id}`;
    this.description = member.roles.join(', ') || 'no role';
    this.iconPath = new vscode.ThemeIcon('person');
    this.contextValue = 'teamMember';
  }
}

export class TeamRoleItem extends vscode.TreeItem {
  constructor(readonly role: TeamRole) {
    super(role.name, vscode.TreeItemCollapsibleState.None);
    this.id = `role-${role.id ?? role.name}`;
    const api = (role.permissions as { api?: Record<string, unknown> } | null | undefined)?.api;
    this.description = `role · ${api ? Object.keys(api).join(', ') || 'no permissions' : 'all permissions'}`;
    this.iconPath = new vscode.ThemeIcon('shield');
    this.contextValue = 'teamRole';
  }
}

/** A row that explains an empty or refused section, with the fix as its command. */
class NoteItem extends vscode.TreeItem {
  constructor(label: string, icon: string, command?: vscode.Command) {
    super(label, vscode.TreeItemCollapsibleState.None);
    this.iconPath = new vscode.ThemeIcon(icon);
    this.command = command;
    this.tooltip = label;
  }
}

export type AccountViewItem =
  | SectionItem
  | ApiKeyItem
  | SshKeyItem
  | TemplateItem
  | VolumeItem
  | EndpointItem
  | EndpointWorkersItem
  | WorkerGroupItem
  | WorkerItem
  | TeamMemberItem
  | TeamRoleItem
  | NoteItem
  | UnreadableItem;

/**
 * The rest of the platform, one collapsible section each, loaded when opened. A section the key
 * may not read says which permission it lacks, not an empty list.
 */
export class AccountView implements vscode.TreeDataProvider<AccountViewItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<AccountViewItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Ids of API keys GPU Rental created, by the fingerprint of their secret (so the one in use is known). */
  ownKeyId: (fingerprint: string) => number | undefined = () => undefined;

  constructor(private readonly session: Session) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(item: AccountViewItem): vscode.TreeItem {
    return item;
  }

  async getChildren(item?: AccountViewItem): Promise<AccountViewItem[]> {
    if (!item) return (Object.keys(SECTIONS) as Section[]).map((s) => new SectionItem(s));
    if (item instanceof EndpointItem) return [new EndpointWorkersItem(item.endpoint), ...item.groups.map((g) => new WorkerGroupItem(g))];
    try {
      if (item instanceof EndpointWorkersItem)
        return workerRows(await this.session.client.serverless.endpointWorkers(item.endpoint.id), `endpoint-${item.endpoint.id}`);
      if (item instanceof WorkerGroupItem)
        return workerRows(await this.session.client.serverless.workerGroupWorkers(item.group.id), `workergroup-${item.group.id}`);
      if (!(item instanceof SectionItem)) return [];
      return await this.load(item.section);
    } catch (error) {
      return [explain(error)];
    }
  }

  /** The API key GPU Rental is signed in with, when it knows it (it created it). */
  inUseId(): number | undefined {
    const fp = this.session.keyFingerprint;
    return fp ? this.ownKeyId(fp) : undefined;
  }

  dispose(): void {
    this.changed.dispose();
  }

  private async load(section: Section): Promise<AccountViewItem[]> {
    const client = this.session.client;
    switch (section) {
      case 'apiKeys': {
        const keys = await client.apiKeys.list();
        const inUse = this.inUseId();
        return withUnreadableRow(
          keys,
          'API key',
          section,
          keys.length
            ? keys.map((k) => new ApiKeyItem(k, k.id === inUse))
            : [new NoteItem('No API keys. Create a scoped one…', 'add', { title: 'Create', command: COMMANDS.createApiKey })],
        );
      }
      case 'sshKeys': {
        const keys = await client.sshKeys.list();
        return withUnreadableRow(
          keys,
          'SSH key',
          section,
          keys.length
            ? keys.map((k) => new SshKeyItem(k))
            : [new NoteItem('No SSH keys. Add one…', 'add', { title: 'Add', command: COMMANDS.addSshKey })],
        );
      }
      case 'templates': {
        // The account's own; public ones are searched from the palette.
        const state = this.session.state;
        const me = state.kind === 'ready' ? state.user?.id : undefined;
        // Templates that could not be read are counted here too: whose they are is not known.
        const all = await client.templates.search();
        const own = all.filter((t) => me === undefined || t.creator_id === me);
        return withUnreadableRow(
          all,
          'template',
          section,
          own.length
            ? own.map((t) => new TemplateItem(t))
            : [
                new NoteItem('No templates of your own. Save an instance as one…', 'add', {
                  title: 'Save',
                  command: COMMANDS.saveAsTemplate,
                }),
              ],
        );
      }
      case 'volumes': {
        const volumes = await client.volumes.list();
        return withUnreadableRow(
          volumes,
          'volume',
          section,
          volumes.length
            ? volumes.map((v) => new VolumeItem(v))
            : [new NoteItem('No volumes. Create one…', 'add', { title: 'Create', command: COMMANDS.createVolume })],
        );
      }
      case 'serverless': {
        const [endpoints, groups] = await Promise.all([client.serverless.listEndpoints(), client.serverless.listWorkerGroups()]);
        if (!endpoints.length)
          return [new NoteItem('No serverless endpoints. Create one…', 'add', { title: 'Create', command: COMMANDS.createEndpoint })];
        return endpoints.map(
          (e) =>
            new EndpointItem(
              e,
              groups.filter((g) => g.endpoint_id === e.id || (g.endpoint_id == null && g.endpoint_name === e.endpoint_name)),
            ),
        );
      }
      case 'team': {
        const [members, roles] = await Promise.all([client.team.members(), client.team.roles()]);
        return [...members.map((m) => new TeamMemberItem(m)), ...roles.map((r) => new TeamRoleItem(r))];
      }
      case 'billing': {
        const { charges, invoices } = await readBilling(this.session, BILLING_DAYS);
        const s = summarise(charges, invoices);
        const open = { title: 'Open Billing Report', command: COMMANDS.showBilling };
        return [
          new NoteItem(`Charges, last ${BILLING_DAYS} days: ${formatDollars(s.charges)}`, 'arrow-down', open),
          ...s.bySource.slice(0, 5).map((r) => new NoteItem(`  ${r.source}: ${formatDollars(r.amount)}`, 'dash', open)),
          new NoteItem(`Credits and payments: ${formatDollars(s.credits)}`, 'arrow-up', open),
          new NoteItem('Open the full report…', 'book', open),
        ];
      }
    }
  }
}

/** The section's rows, and below them how many records its list could not read, if any. */
function withUnreadableRow(list: readonly unknown[], what: string, section: Section, rows: AccountViewItem[]): AccountViewItem[] {
  const row = unreadableRow(list, what, `section-${section}-unreadable`);
  if (!row) return rows;
  // "No volumes. Create one…" would be wrong when the list had records it could not read.
  return list.length === 0 ? [row] : [...rows, row];
}

function workerRows(workers: ServerlessWorker[], owner: string): AccountViewItem[] {
  return workers.length
    ? workers.map((w) => new WorkerItem(w, owner))
    : [new NoteItem('No workers now (the autoscaler starts them as load needs).', 'info')];
}

function explain(error: unknown): NoteItem {
  if (error instanceof ApiError && error.kind === 'forbidden' && error.reason !== 'two_factor') {
    const what = error.permission ? `'${error.permission}' (${describeCategory(error.permission)})` : 'the permission this needs';
    return new NoteItem(`This API key lacks ${what}.`, 'circle-slash', { title: 'Set API Key', command: COMMANDS.setApiKey });
  }
  return new NoteItem(error instanceof Error ? error.message : String(error), 'error', { title: 'Retry', command: COMMANDS.refresh });
}
