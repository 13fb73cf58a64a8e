import * as vscode from 'vscode';
import { burnRate } from '../../core/instances/rates';
import { checkBaseUrl } from '../../core/api/transport';
import { COMMANDS } from '../../core/ids';
import { DEFAULT_PROFILE_ID, profileNameProblem, type Profile } from '../../core/session/profiles';
import { config } from '../config';
import type { Logger } from '../../core/log';
import type { ProfileSwitcher } from '../../core/session/profileSwitcher';
import type { ClientFactory, Session } from '../../core/session/session';
import type { Profiles } from '../profiles';
import type { Prompts } from '../prompts';
import { command, type CommandDefinition } from './registry';
import { formatDollars } from '../../core/format';

/** What automation (and the tests) may pass instead of answering the inputs. */
interface NewProfileSpec {
  name: string;
  baseUrl?: string;
  /** Signs the new profile in with this key (checked first, as Set API Key does). */
  apiKey?: string;
}

/** What the profile commands use. */
export interface ProfileDeps {
  readonly profiles: Profiles;
  readonly session: Pick<Session, 'profileId' | 'signIn'>;
  readonly switcher: Pick<ProfileSwitcher, 'profile' | 'switchProfile' | 'keyOf' | 'deleteKeyOf'>;
  /** Makes a short-lived client to look at another profile's account before it is removed. */
  readonly createClient: ClientFactory;
  /** A getter: integration tests replace the prompts at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

/** Profiles: several accounts or services, one key each; switched from the status bar or here. */
export function profileCommands(s: ProfileDeps): CommandDefinition[] {
  return [
    command(COMMANDS.switchProfile, (id?: string) => switchProfile(s, id)),
    command(COMMANDS.addProfile, (spec?: NewProfileSpec) => addProfile(s, spec)),
    command(COMMANDS.removeProfile, (id?: string) => removeProfile(s, id)),
  ];
}

const ADD = vscode.l10n.t('$(add) Add Profile…');

/** Resolves with the profile now in use, or undefined when the pick was dismissed. */
async function switchProfile(s: ProfileDeps, id: string | undefined): Promise<string | undefined> {
  if (id === undefined) {
    const current = s.session.profileId;
    const items = s.profiles.list().map((p) => ({
      label: `${p.id === current ? '$(check) ' : ''}${p.name}`,
      description: s.profiles.baseUrl(p),
      detail: p.id === DEFAULT_PROFILE_ID ? vscode.l10n.t('Its service is the gpuRental.apiUrl setting.') : undefined,
      id: p.id,
    }));
    const pick = await vscode.window.showQuickPick(
      [...items, { label: ADD, description: vscode.l10n.t('another account, or another service'), id: '' }],
      {
        title: vscode.l10n.t('GPU Rental: Switch Profile'),
        placeHolder: vscode.l10n.t('Each profile has its own API key; its instances, offers and SSH entries are its own.'),
      },
    );
    if (!pick) return undefined;
    if (pick.label === ADD) return addProfile(s, undefined);
    id = pick.id;
  }
  await s.switcher.switchProfile(id);
  return id;
}

/** Adds a profile, switches to it and asks for its key. Resolves with its id. */
async function addProfile(s: ProfileDeps, spec: NewProfileSpec | undefined): Promise<string | undefined> {
  const existing = s.profiles.list();
  const name =
    spec?.name ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: Add Profile (1/2)'),
      prompt: vscode.l10n.t('A name for the account, such as "Work" or "Team A". It also goes into the SSH aliases of its instances.'),
      validateInput: (v) => profileNameProblem(v, existing),
      ignoreFocusOut: true,
    }));
  if (name === undefined) return undefined;
  const baseUrl =
    spec?.baseUrl ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('GPU Rental: Add Profile (2/2)'),
      prompt: vscode.l10n.t('The service this account is on. Keep the address for another account on the same service.'),
      value: s.profiles.baseUrl(s.switcher.profile) || config.apiUrl(),
      validateInput: (v) => urlProblem(v),
      ignoreFocusOut: true,
    }));
  if (baseUrl === undefined) return undefined;
  const profile = await s.profiles.add(name, baseUrl);
  s.logger.info(`Added the profile "${profile.name}" (${profile.baseUrl ?? ''}).`);
  await s.switcher.switchProfile(profile.id);
  if (spec?.apiKey !== undefined) await s.session.signIn(spec.apiKey);
  else if (spec === undefined) void vscode.commands.executeCommand(COMMANDS.setApiKey);
  return profile.id;
}

function urlProblem(value: string): string | undefined {
  try {
    checkBaseUrl(value.trim());
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Removes a profile and its key from this machine, after a confirmation that says what its
 * account still runs: those instances keep billing and will not be visible here any more.
 */
async function removeProfile(s: ProfileDeps, id: string | undefined): Promise<boolean> {
  const removable = s.profiles.list().filter((p) => p.id !== DEFAULT_PROFILE_ID);
  if (removable.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('GPU Rental: there is only the default profile, which cannot be removed. Add Profile adds another account.'),
    );
    return false;
  }
  let profile = removable.find((p) => p.id === id);
  if (!profile) {
    const pick = await vscode.window.showQuickPick(
      removable.map((p) => ({ label: p.name, description: s.profiles.baseUrl(p), profile: p })),
      {
        title: vscode.l10n.t('GPU Rental: Remove Profile'),
        placeHolder: vscode.l10n.t('The default profile stays; it follows the gpuRental.apiUrl setting.'),
      },
    );
    if (!pick) return false;
    profile = pick.profile;
  }
  const baseUrl = checkBaseUrl(s.profiles.baseUrl(profile));
  const running = await stillBilling(s, profile, baseUrl);
  const detail = [
    vscode.l10n.t(
      'Its API key is deleted from this machine (the key itself stays valid on the service; revoke it there if it should not).',
    ),
    running,
    s.session.profileId === profile.id ? vscode.l10n.t('This window switches to the default profile.') : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  if (!(await s.prompts().confirm(vscode.l10n.t('Remove the profile "{0}"?', profile.name), detail, vscode.l10n.t('Remove Profile'))))
    return false;
  if (s.session.profileId === profile.id) await s.switcher.switchProfile(DEFAULT_PROFILE_ID);
  await s.switcher.deleteKeyOf(profile, baseUrl);
  await s.profiles.remove(profile.id);
  s.logger.info(`Removed the profile "${profile.name}" and its key.`);
  return true;
}

/** What the profile's account still has that bills, read with its own key; a sentence, or ''. */
async function stillBilling(s: ProfileDeps, profile: Profile, baseUrl: string): Promise<string> {
  const key = await s.switcher.keyOf(profile, baseUrl);
  if (!key) return '';
  try {
    const client = s.createClient(baseUrl, () => key);
    const instances = await client.instances.listInOneRequest({ retry: 'never' });
    if (instances.length === 0) return vscode.l10n.t('Its account has no instances.');
    const burn = burnRate(instances);
    return instances.length === 1
      ? vscode.l10n.t(
          'Its account has 1 instance ({0}/h now). It keeps running and billing on the service, and will no longer be shown here. Destroy it first if you do not need it.',
          formatDollars(burn.perHour),
        )
      : vscode.l10n.t(
          'Its account has {0} instances ({1}/h now). They keep running and billing on the service, and will no longer be shown here. Destroy them first if you do not need them.',
          instances.length,
          formatDollars(burn.perHour),
        );
  } catch (error) {
    s.logger.warn(`Could not list the instances of the profile "${profile.name}": ${String(error)}`);
    return vscode.l10n.t(
      'Its instances could not be listed. Any it has keep running and billing on the service, and will no longer be shown here.',
    );
  }
}
