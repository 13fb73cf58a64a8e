// The language model tools (package.json `contributes.languageModelTools`): each one a command's
// flow, called with what a model gave. What they accept, confirm and answer is core/agent/; the
// activation chunk registers a stand-in per tool (src/ui/shell/shell.ts) that calls these.
import { TOOLS, type ToolName } from '../../../core/ids';
import type { InstancePoller } from '../../../core/instances/poller';
import type { Logger } from '../../../core/log';
import type { PriceContextSource } from '../../../core/offers/priceSource';
import type { Session } from '../../../core/session/session';
import type { SharedDeps } from '../index';
import type { Jobs } from '../../views/jobItems';
import { destroyInstanceTool, runJobTool, startInstanceTool, stopInstanceTool, uploadFolderTool } from './instanceTools';
import { accountTool, checkHealthTool, jobOutputTool, listInstancesTool, searchOffersTool } from './readTools';
import { rentBestMatchTool, rentOfferTool } from './rentTools';
import { tool, type ToolImpl } from './toolKit';

/** What the tools use: the window's objects, and the very deps the commands they reuse are given. */
export interface AgentDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly jobs: Jobs;
  readonly priceContext?: PriceContextSource;
  readonly logger: Logger;
  readonly rent: SharedDeps['rent'];
  readonly transfer: SharedDeps['transfer'];
  readonly instances: SharedDeps['instances'];
  readonly health: SharedDeps['health'];
  readonly jobCommands: SharedDeps['jobs'];
}

/** Every tool by name. A tool that spends, changes or sends has a confirmation; the read-only ones do not. */
export function agentTools(s: AgentDeps): ReadonlyMap<ToolName, ToolImpl> {
  const bodies = {
    [TOOLS.searchOffers]: searchOffersTool(s),
    [TOOLS.listInstances]: listInstancesTool(s),
    [TOOLS.jobOutput]: jobOutputTool(s),
    [TOOLS.checkHealth]: checkHealthTool(s),
    [TOOLS.account]: accountTool(s),
    [TOOLS.rentOffer]: rentOfferTool(s),
    [TOOLS.rentBestMatch]: rentBestMatchTool(s),
    [TOOLS.stopInstance]: stopInstanceTool(s),
    [TOOLS.startInstance]: startInstanceTool(s),
    [TOOLS.destroyInstance]: destroyInstanceTool(s),
    [TOOLS.uploadFolder]: uploadFolderTool(s),
    [TOOLS.runJob]: runJobTool(s),
  } satisfies Record<ToolName, unknown>;
  return new Map(Object.entries(bodies).map(([name, body]) => [name as ToolName, tool(name, body, s.logger)]));
}
