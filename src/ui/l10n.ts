import * as vscode from 'vscode';
import { useTranslator } from '../core/l10n';

// Imported first by extension.ts, so that a message built while the bundle's modules load (a
// constant label, say) is already in VS Code's display language.
useTranslator((message, args) => vscode.l10n.t(message, ...args));
