import * as vscode from 'vscode';
import { presentSection, type AccountSection, type ItemPresentation, type NotePresentation } from '../../../core/account/present';

/** A tree item that shows what a core presenter decided, and nothing else. */
export class PresentedItem extends vscode.TreeItem {
  constructor(p: ItemPresentation, collapsible: vscode.TreeItemCollapsibleState) {
    super(p.label, collapsible);
    this.id = p.id;
    if (p.description !== undefined) this.description = p.description;
    if (p.markdownTooltip !== undefined) this.tooltip = new vscode.MarkdownString(p.markdownTooltip);
    else if (p.tooltip !== undefined) this.tooltip = p.tooltip;
    this.iconPath = new vscode.ThemeIcon(p.icon);
    this.contextValue = p.contextValue;
  }
}

/** A top-level section of the Account view; its rows are read when it is expanded. */
export class SectionItem extends PresentedItem {
  constructor(readonly section: AccountSection) {
    super(presentSection(section), vscode.TreeItemCollapsibleState.Collapsed);
  }
}

/** A row that explains an empty or refused section, with the fix as its command. */
export class NoteItem extends vscode.TreeItem {
  constructor(note: NotePresentation) {
    super(note.label, vscode.TreeItemCollapsibleState.None);
    this.iconPath = new vscode.ThemeIcon(note.icon);
    this.command = note.command;
    this.tooltip = note.label;
  }
}
