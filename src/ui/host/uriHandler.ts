import * as vscode from 'vscode';
import { COMMANDS } from '../../core/ids';
import { openLink, type OpenLinkDeps } from '../../core/instances/openLink';
import { connectLink } from '../../core/links';
import { visibleText } from '../../core/text';
import { asker, type Prompts } from '../pickers/prompts';

/** How opening a link ended, for the tests: what the user was told is the message. */
export interface LinkOutcome {
  readonly outcome: 'refused' | 'signedOut' | 'declined' | 'notFound' | 'connect';
  /** The message shown (without "GPU Rental: "), or for `connect` the connect command's own outcome. */
  readonly detail: string;
}

/** What opening a link reads and acts through. */
export interface LinkHandlerDeps extends Omit<OpenLinkDeps, 'ask' | 'example'> {
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  /** `publisher.name`, read from the running extension, as links name it (the publisher may change). */
  readonly extensionId: string;
}

/**
 * Opens `vscode://<publisher>.<name>/connect?instance=ID&profile=ID` links: core decides
 * (src/core/instances/openLink.ts); this shows what it says, or hands the instance to Connect.
 */
export class LinkHandler implements vscode.UriHandler {
  constructor(private readonly s: LinkHandlerDeps) {}

  /** A link to an instance, as this editor opens it. */
  linkTo(instanceId: number, profileId?: string): string {
    return connectLink(`${vscode.env.uriScheme}://${this.s.extensionId}`, instanceId, profileId);
  }

  handleUri(uri: vscode.Uri): void {
    void this.open(uri).catch((error: unknown) => {
      this.s.logger.error(`Opening a link failed: ${visibleText(String(error), 500)}`);
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'GPU Rental: the link could not be opened: {0}',
          visibleText(error instanceof Error ? error.message : String(error), 500),
        ),
      );
    });
  }

  /** Opens a link (a Uri, or its text); resolves with how it ended. */
  async open(link: vscode.Uri | string): Promise<LinkOutcome> {
    const uri = typeof link === 'string' ? vscode.Uri.parse(link, true) : link;
    const result = await openLink({ ...this.s, ask: asker(this.s.prompts()), example: this.linkTo(123) }, uri.path, uri.query);
    if (result.outcome === 'connect') {
      // Connect asks before starting a stopped instance and waits for a booting one.
      const outcome = await vscode.commands.executeCommand<string | undefined>(COMMANDS.connect, result.instanceId);
      return { outcome: 'connect', detail: outcome ?? 'cancelled' };
    }
    if ('level' in result) {
      const text = vscode.l10n.t('GPU Rental: {0}', result.detail);
      void (result.level === 'error' ? vscode.window.showErrorMessage(text) : vscode.window.showWarningMessage(text));
    }
    return { outcome: result.outcome, detail: result.detail };
  }
}
