import * as vscode from 'vscode';
import {
  ACCOUNT_SECTIONS,
  EMPTY_SECTION_NOTES,
  endpointGroups,
  explainSectionError,
  type AccountSection,
} from '../../../core/account/present';
import type { Session } from '../../../core/session/session';
import { UnreadableItem, unreadableRow } from '../unreadable';
import { billingRows } from './billingItems';
import { ApiKeyItem, SshKeyItem } from './keyItems';
import { NoteItem, SectionItem } from './rows';
import { SecretItem } from './secretsItems';
import { EndpointItem, EndpointWorkersItem, WorkerGroupItem, WorkerItem, workerRows } from './serverlessItems';
import { TeamMemberItem, TeamRoleItem } from './teamItems';
import { TemplateItem } from './templateItems';
import { VolumeItem } from './volumeItems';

export type AccountViewItem =
  | SectionItem
  | ApiKeyItem
  | SshKeyItem
  | SecretItem
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
    if (!item) return (Object.keys(ACCOUNT_SECTIONS) as AccountSection[]).map((s) => new SectionItem(s));
    if (item instanceof EndpointItem) return [new EndpointWorkersItem(item.endpoint), ...item.groups.map((g) => new WorkerGroupItem(g))];
    try {
      if (item instanceof EndpointWorkersItem)
        return workerRows(await this.session.client.serverless.endpointWorkers(item.endpoint.id), `endpoint-${item.endpoint.id}`);
      if (item instanceof WorkerGroupItem)
        return workerRows(await this.session.client.serverless.workerGroupWorkers(item.group.id), `workergroup-${item.group.id}`);
      if (!(item instanceof SectionItem)) return [];
      return await this.load(item.section);
    } catch (error) {
      return [new NoteItem(explainSectionError(error))];
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

  private async load(section: AccountSection): Promise<AccountViewItem[]> {
    const client = this.session.client;
    switch (section) {
      case 'apiKeys': {
        const keys = await client.apiKeys.list();
        const inUse = this.inUseId();
        return withUnreadableRow(
          keys,
          vscode.l10n.t('API key'),
          section,
          keys.length ? keys.map((k) => new ApiKeyItem(k, k.id === inUse)) : [emptyNote(section)],
        );
      }
      case 'sshKeys': {
        const keys = await client.sshKeys.list();
        return withUnreadableRow(
          keys,
          vscode.l10n.t('SSH key'),
          section,
          keys.length ? keys.map((k) => new SshKeyItem(k)) : [emptyNote(section)],
        );
      }
      case 'secrets': {
        // Names only: the client drops the values the service lists.
        const names = await client.secrets.list();
        return names.length ? names.map((n) => new SecretItem(n)) : [emptyNote(section)];
      }
      case 'templates': {
        // The account's own; public ones are searched from the palette.
        const state = this.session.state;
        const me = state.kind === 'ready' ? state.user?.id : undefined;
        // Templates that could not be read are counted here too: whose they are is not known.
        const all = await client.templates.search();
        const own = all.filter((t) => me === undefined || t.creator_id === me);
        return withUnreadableRow(all, 'template', section, own.length ? own.map((t) => new TemplateItem(t)) : [emptyNote(section)]);
      }
      case 'volumes': {
        const volumes = await client.volumes.list();
        return withUnreadableRow(volumes, 'volume', section, volumes.length ? volumes.map((v) => new VolumeItem(v)) : [emptyNote(section)]);
      }
      case 'serverless': {
        const [endpoints, groups] = await Promise.all([client.serverless.listEndpoints(), client.serverless.listWorkerGroups()]);
        if (!endpoints.length) return [emptyNote(section)];
        return endpoints.map((e) => new EndpointItem(e, endpointGroups(e, groups)));
      }
      case 'team': {
        const [members, roles] = await Promise.all([client.team.members(), client.team.roles()]);
        return [...members.map((m) => new TeamMemberItem(m)), ...roles.map((r) => new TeamRoleItem(r))];
      }
      case 'billing':
        return await billingRows(this.session);
    }
  }
}

function emptyNote(section: keyof typeof EMPTY_SECTION_NOTES): NoteItem {
  return new NoteItem(EMPTY_SECTION_NOTES[section]);
}

/** The section's rows, and below them how many records its list could not read, if any. */
function withUnreadableRow(list: readonly unknown[], what: string, section: AccountSection, rows: AccountViewItem[]): AccountViewItem[] {
  const row = unreadableRow(list, what, `section-${section}-unreadable`);
  if (!row) return rows;
  // "No volumes. Create one…" would be wrong when the list had records it could not read.
  return list.length === 0 ? [row] : [...rows, row];
}
