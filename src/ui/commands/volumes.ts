import { createVolume, deleteVolume, type NewVolume, type VolumeFlowDeps } from '../../core/account/volumeFlows';
import { COMMANDS } from '../../core/ids';
import { asker } from '../pickers/prompts';
import { VolumeItem } from '../views/account/volumeItems';
import { shownWith, type AccountAreaDeps } from './accountDeps';
import { command, type CommandDefinition } from '../registry';

/** Volumes: create from a volume offer (with its price), delete after a confirmation; decided in core/account/volumeFlows.ts. */
export function volumeCommands(s: AccountAreaDeps): CommandDefinition[] {
  const deps = (): VolumeFlowDeps => ({ ask: asker(s.prompts()), volumes: s.session.client.volumes });
  const shown = shownWith(s);
  return [
    command(COMMANDS.createVolume, (spec?: NewVolume) => shown(createVolume(deps(), spec))),
    command(COMMANDS.deleteVolume, (t?: VolumeItem | number) => shown(deleteVolume(deps(), t instanceof VolumeItem ? t.volume : t))),
  ];
}
