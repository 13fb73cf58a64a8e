import * as vscode from 'vscode';
import {
  addProfileFlow,
  removeProfileFlow,
  switchProfileFlow,
  type NewProfileSpec,
  type ProfileFlowDeps,
} from '../../core/account/profileFlows';
import { COMMANDS } from '../../core/ids';
import type { Logger } from '../../core/log';
import type { ProfileSwitcher } from '../../core/session/profileSwitcher';
import type { ClientFactory, Session } from '../../core/session/session';
import { config } from '../host/config';
import type { Profiles } from '../host/profiles';
import { asker, type Prompts } from '../pickers/prompts';
import { notify } from '../pickers/notify';
import { command, type CommandDefinition } from '../registry';

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

/** Profiles: several accounts or services, one key each; switched from the status bar or here (decided in core/account/profileFlows.ts). */
export function profileCommands(s: ProfileDeps): CommandDefinition[] {
  const deps = (): ProfileFlowDeps => ({
    ask: asker(s.prompts()),
    profiles: s.profiles,
    session: s.session,
    switcher: s.switcher,
    instancesOf: (baseUrl, key) => s.createClient(baseUrl, () => key).instances.listInOneRequest({ retry: 'never' }),
    apiUrl: () => config.apiUrl(),
    logger: s.logger,
  });
  /** Resolves with the profile's id; a profile added here asks for its key next. */
  const added = (result: { id: string; askKey?: boolean } | undefined) => {
    if (result?.askKey) void vscode.commands.executeCommand(COMMANDS.setApiKey);
    return result?.id;
  };
  return [
    command(COMMANDS.switchProfile, async (id?: string) => added(await switchProfileFlow(deps(), id))),
    command(COMMANDS.addProfile, async (spec?: NewProfileSpec) => added(await addProfileFlow(deps(), spec))),
    command(COMMANDS.removeProfile, async (id?: string) => {
      const { value, notice } = await removeProfileFlow(deps(), id);
      void notify(notice);
      return value;
    }),
  ];
}
