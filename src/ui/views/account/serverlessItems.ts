import * as vscode from 'vscode';
import { NO_WORKERS_NOTE, presentEndpoint, presentEndpointWorkers, presentWorker, presentWorkerGroup } from '../../../core/account/present';
import type { Endpoint, ServerlessWorker, WorkerGroup } from '../../../core/api/serverless';
import { NoteItem, PresentedItem } from './rows';

/** A serverless endpoint; open when it has worker groups, which are its children with its Workers row. */
export class EndpointItem extends PresentedItem {
  constructor(
    readonly endpoint: Endpoint,
    readonly groups: WorkerGroup[],
  ) {
    super(
      presentEndpoint(endpoint, groups),
      groups.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
    );
  }
}

/** A worker group of an endpoint; its workers are read when expanded. */
export class WorkerGroupItem extends PresentedItem {
  constructor(readonly group: WorkerGroup) {
    super(presentWorkerGroup(group), vscode.TreeItemCollapsibleState.Collapsed);
  }
}

/** The workers an endpoint's autoscaler runs now, over all its groups; read when expanded. */
export class EndpointWorkersItem extends PresentedItem {
  constructor(readonly endpoint: Endpoint) {
    super(presentEndpointWorkers(endpoint), vscode.TreeItemCollapsibleState.Collapsed);
  }
}

/** A worker, under the endpoint's Workers row or its group (`owner` is that row's id). */
export class WorkerItem extends PresentedItem {
  constructor(
    readonly worker: ServerlessWorker,
    owner: string,
  ) {
    super(presentWorker(worker, owner), vscode.TreeItemCollapsibleState.None);
  }
}

/** The rows under a Workers row or a group: its workers, or a note that there are none now. */
export function workerRows(workers: ServerlessWorker[], owner: string): Array<WorkerItem | NoteItem> {
  return workers.length ? workers.map((w) => new WorkerItem(w, owner)) : [new NoteItem(NO_WORKERS_NOTE)];
}
