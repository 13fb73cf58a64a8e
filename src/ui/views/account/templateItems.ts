import * as vscode from 'vscode';
import { presentTemplate } from '../../../core/account/present';
import type { Template } from '../../../core/api/templates';
import { PresentedItem } from './rows';

/** One of the account's own templates. */
export class TemplateItem extends PresentedItem {
  constructor(readonly template: Template) {
    super(presentTemplate(template), vscode.TreeItemCollapsibleState.None);
  }
}
