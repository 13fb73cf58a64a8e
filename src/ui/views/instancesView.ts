import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { formatDollars } from '../../core/offers/present';
import type { Session } from '../../core/session/session';
import { ListView } from './listView';

export class InstanceItem extends vscode.TreeItem {
  constructor(readonly instance: Instance) {
    const gpus = instance.gpu_name ? `${instance.gpu_name}${(instance.num_gpus ?? 1) > 1 ? ` ×${instance.num_gpus}` : ''}` : 'instance';
    super(instance.label || gpus, vscode.TreeItemCollapsibleState.None);
    this.id = `instance-${instance.id}`;
    const status = instance.actual_status ?? 'provisioning';
    const price = instance.dph_total === null || instance.dph_total === undefined ? undefined : `${formatDollars(instance.dph_total)}/h`;
    this.description = [status, price].filter(Boolean).join(' · ');
    this.tooltip = `#${instance.id} ${gpus}: ${instance.status_msg ?? status}`;
    this.iconPath = new vscode.ThemeIcon('vm');
    this.contextValue = 'instance';
  }
}

/** The account's instances, newest last. */
export class InstancesView extends ListView<InstanceItem> {
  constructor(session: Session) {
    super(session, 'list instances');
  }

  protected async load(): Promise<InstanceItem[]> {
    const instances = await this.session.client.instances.list();
    return instances.map((instance) => new InstanceItem(instance));
  }
}
