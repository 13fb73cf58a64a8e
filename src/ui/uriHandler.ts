import * as vscode from 'vscode';
import { ApiError } from '../core/api/errors';
import type { Instance } from '../core/api/instances';
import { COMMANDS } from '../core/ids';
import type { InstancePoller } from '../core/instances/poller';
import { connectLink, parseLink } from '../core/links';
import type { Logger } from '../core/log';
import type { ProfileSwitcher } from '../core/session/profileSwitcher';
import type { Session } from '../core/session/session';
import { visibleText } from '../core/text';
import type { Profiles } from './profiles';
import type { Prompts } from './prompts';

/** How long a link waits for the session to finish checking its key (the service may be slow to answer). */
const SETTLE_MS = 30_000;

/** How opening a link ended, for the tests: what the user was told is the message. */
export interface LinkOutcome {
  readonly outcome: 'refused' | 'signedOut' | 'declined' | 'notFound' | 'connect';
  /** The message shown (without "GPU Rental: "), or for `connect` the connect command's own outcome. */
  readonly detail: string;
}

/** What opening a link reads and acts through. */
export interface LinkHandlerDeps {
  readonly session: Pick<Session, 'client' | 'profileId' | 'state' | 'onDidChangeState'>;
  readonly poller: Pick<InstancePoller, 'snapshot' | 'refresh'>;
  readonly profiles: Pick<Profiles, 'list' | 'get'>;
  readonly switcher: Pick<ProfileSwitcher, 'switchProfile' | 'where'>;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
  /** `publisher.name`, read from the running extension, as links name it (the publisher may change). */
  readonly extensionId: string;
}

/**
 * Opens `vscode://<publisher>.<name>/connect?instance=ID&profile=ID` links. The link is checked
 * (src/core/links.ts); a profile switch is asked first; the instance is then handed to Connect,
 * which asks before it starts a stopped instance (it bills) and never rents. A link that is not
 * valid, or an instance the account does not have, is said, with which account was looked in.
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
    const { s } = this;
    const uri = typeof link === 'string' ? vscode.Uri.parse(link, true) : link;
    // The query is never logged: a link could carry anything someone pasted into it. The path is
    // logged with its hidden characters shown, so a line break in it cannot forge a log line.
    s.logger.info(`Opening a link: ${visibleText(uri.path, 200)}`);
    const parsed = parseLink(
      uri.path,
      uri.query,
      s.profiles.list().map((p) => p.id),
    );
    if (parsed.kind === 'refused') {
      return this.say(
        'refused',
        vscode.l10n.t('did not open the link: {0} A link looks like {1}.', parsed.reason, this.linkTo(123)),
        'error',
      );
    }
    // A link may be what started the editor: the stored key is still being checked.
    await this.settled();
    if (parsed.profileId !== undefined && parsed.profileId !== s.session.profileId) {
      const target = s.profiles.get(parsed.profileId)!;
      const ok = await s
        .prompts()
        .confirm(
          vscode.l10n.t('Switch to the profile "{0}"?', target.name),
          vscode.l10n.t(
            'The link opens instance #{0} of the profile "{1}". This window is signed in to {2}; switching changes the account every view shows.',
            parsed.instanceId,
            target.name,
            s.switcher.where,
          ),
          vscode.l10n.t('Switch Profile'),
        );
      if (!ok) return { outcome: 'declined', detail: vscode.l10n.t('the profile switch was declined') };
      await s.switcher.switchProfile(parsed.profileId);
      await this.settled();
    }
    if (s.session.state.kind !== 'ready') {
      return this.say(
        'signedOut',
        vscode.l10n.t(
          'did not open instance #{0}: {1} is not signed in ({2}). Set an API key, then open the link again.',
          parsed.instanceId,
          s.switcher.where,
          s.session.state.kind,
        ),
        'warning',
      );
    }
    const instance = await this.find(parsed.instanceId);
    if (!instance) {
      const state = s.session.state;
      // The address is the service's text: shown with its hidden characters as escapes.
      const account =
        state.kind === 'ready' && state.user?.email ? `${visibleText(state.user.email)} on ${s.switcher.where}` : s.switcher.where;
      return this.say(
        'notFound',
        vscode.l10n.t(
          'instance #{0} was not found in the account {1}. It may have been destroyed, or belong to another profile: a link can name one (&profile=ID).',
          parsed.instanceId,
          account,
        ),
        'warning',
      );
    }
    // Connect asks before starting a stopped instance and waits for a booting one.
    const outcome = await vscode.commands.executeCommand<string | undefined>(COMMANDS.connect, instance.id);
    return { outcome: 'connect', detail: outcome ?? 'cancelled' };
  }

  /** Resolves once the session is no longer checking its key, or after SETTLE_MS. */
  private settled(): Promise<void> {
    const { session } = this.s;
    if (session.state.kind !== 'checking') return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, SETTLE_MS);
      const subscription = session.onDidChangeState((state) => {
        if (state.kind !== 'checking') done();
      });
      function done() {
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      }
    });
  }

  private async find(id: number): Promise<Instance | undefined> {
    await this.s.poller.refresh();
    const listed = this.s.poller.snapshot?.instances.find((i) => i.id === id);
    if (listed) return listed;
    try {
      return await this.s.session.client.instances.show(id);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'not_found') return undefined;
      throw error;
    }
  }

  private say(outcome: LinkOutcome['outcome'], detail: string, level: 'error' | 'warning'): LinkOutcome {
    if (level === 'error') void vscode.window.showErrorMessage(vscode.l10n.t('GPU Rental: {0}', detail));
    else void vscode.window.showWarningMessage(vscode.l10n.t('GPU Rental: {0}', detail));
    return { outcome, detail };
  }
}
