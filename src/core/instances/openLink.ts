import { ApiError } from '../api/errors';
import type { Instance } from '../api/instances';
import { parseLink } from '../links';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Ask } from '../prompts';
import type { ProfileSwitcher } from '../session/profileSwitcher';
import type { Session } from '../session/session';
import { visibleText } from '../text';
import type { InstancePoller } from './poller';

/*
 * Opening a `…/connect?instance=ID&profile=ID` link: the link is checked (src/core/links.ts), a
 * profile switch is asked first, and the instance is looked up in the account. What is left for
 * the ui (src/ui/host/uriHandler.ts) is showing the notice, or handing the instance to Connect, which
 * asks before it starts a stopped instance (it bills) and never rents.
 */

/** How long a link waits for the session to finish checking its key (the service may be slow to answer). */
export const LINK_SETTLE_MS = 30_000;

/** What opening a link reads and acts through. */
export interface OpenLinkDeps {
  readonly ask: Pick<Ask, 'confirm'>;
  readonly session: Pick<Session, 'client' | 'profileId' | 'state' | 'onDidChangeState'>;
  readonly poller: Pick<InstancePoller, 'snapshot' | 'refresh'>;
  readonly profiles: { list(): ReadonlyArray<{ id: string; name: string }> };
  readonly switcher: Pick<ProfileSwitcher, 'switchProfile' | 'where'>;
  readonly logger: Logger;
  /** An example link, as this editor opens them, for the refusal's "a link looks like …". */
  readonly example: string;
  /** Waits `ms` (a test passes one that resolves at once); resolves early when the session settles. */
  readonly settleMs?: number;
}

/** How opening a link ended; a `notice` is shown at its `level` (without "GPU Rental: ", which the ui adds). */
export type OpenLinkResult =
  | { outcome: 'refused' | 'signedOut' | 'notFound'; detail: string; level: 'error' | 'warning' }
  | { outcome: 'declined'; detail: string }
  | { outcome: 'connect'; instanceId: number };

/** Checks a link's path and query, switches profile if the user agrees, and finds the instance. */
export async function openLink(deps: OpenLinkDeps, path: string, query: string): Promise<OpenLinkResult> {
  const { session, switcher } = deps;
  // The query is never logged: a link could carry anything someone pasted into it. The path is
  // logged with its hidden characters shown, so a line break in it cannot forge a log line.
  deps.logger.info(`Opening a link: ${visibleText(path, 200)}`);
  const parsed = parseLink(
    path,
    query,
    deps.profiles.list().map((p) => p.id),
  );
  if (parsed.kind === 'refused') {
    const detail = l10n.t('did not open the link: {0} A link looks like {1}.', parsed.reason, deps.example);
    return { outcome: 'refused', detail, level: 'error' };
  }
  // A link may be what started the editor: the stored key is still being checked.
  await settled(session, deps.settleMs ?? LINK_SETTLE_MS);
  if (parsed.profileId !== undefined && parsed.profileId !== session.profileId) {
    const target = deps.profiles.list().find((p) => p.id === parsed.profileId)!;
    const ok = await deps.ask.confirm(
      l10n.t('Switch to the profile "{0}"?', target.name),
      l10n.t(
        'The link opens instance #{0} of the profile "{1}". This window is signed in to {2}; switching changes the account every view shows.',
        parsed.instanceId,
        target.name,
        switcher.where,
      ),
      l10n.t('Switch Profile'),
    );
    if (!ok) return { outcome: 'declined', detail: l10n.t('the profile switch was declined') };
    await switcher.switchProfile(parsed.profileId);
    await settled(session, deps.settleMs ?? LINK_SETTLE_MS);
  }
  if (session.state.kind !== 'ready') {
    const detail = l10n.t(
      'did not open instance #{0}: {1} is not signed in ({2}). Set an API key, then open the link again.',
      parsed.instanceId,
      switcher.where,
      session.state.kind,
    );
    return { outcome: 'signedOut', detail, level: 'warning' };
  }
  const instance = await find(deps, parsed.instanceId);
  if (instance) return { outcome: 'connect', instanceId: instance.id };
  return {
    outcome: 'notFound',
    detail: notFound(parsed.instanceId, session.state.user?.email ?? undefined, switcher.where),
    level: 'warning',
  };
}

/** The account looked in: its address (the service's text, hidden characters shown as escapes) on the service, when known. */
function notFound(instanceId: number, email: string | undefined, where: string): string {
  return email
    ? l10n.t(
        'instance #{0} was not found in the account {1} on {2}. It may have been destroyed, or belong to another profile: a link can name one (&profile=ID).',
        instanceId,
        visibleText(email),
        where,
      )
    : l10n.t(
        'instance #{0} was not found in the account {1}. It may have been destroyed, or belong to another profile: a link can name one (&profile=ID).',
        instanceId,
        where,
      );
}

/** Resolves once the session is no longer checking its key, or after `ms`. */
function settled(session: OpenLinkDeps['session'], ms: number): Promise<void> {
  if (session.state.kind !== 'checking') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
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

/** The instance from the list (read now), else asked for by id; undefined when the account does not have it. */
async function find(deps: OpenLinkDeps, id: number): Promise<Instance | undefined> {
  await deps.poller.refresh();
  const listed = deps.poller.snapshot?.instances.find((i) => i.id === id);
  if (listed) return listed;
  try {
    return await deps.session.client.instances.show(id);
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'not_found') return undefined;
    throw error;
  }
}
