import * as vscode from 'vscode';
import { presentVolume } from '../../../core/account/present';
import type { Volume } from '../../../core/api/volumes';
import { PresentedItem } from './rows';

/** A volume of the account; it bills until deleted. */
export class VolumeItem extends PresentedItem {
  constructor(readonly volume: Volume) {
    super(presentVolume(volume), vscode.TreeItemCollapsibleState.None);
  }
}
