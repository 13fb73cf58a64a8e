/**
 * What each row of the Account view says: label, description, tooltip, icon and the `contextValue`
 * the menus' `when` clauses read. Pure functions of what the service sent; the view only wraps them in
 * tree items, so every text here is pinned by a unit test and the integration tests that read the view.
 */
import type { ApiKey, SshKey } from '../api/account';
import { ApiError } from '../api/errors';
import type { Endpoint, ServerlessWorker, WorkerGroup } from '../api/serverless';
import type { TeamMember, TeamRole } from '../api/team';
import type { Template } from '../api/templates';
import type { Volume } from '../api/volumes';
import type { BillingSummary } from '../billing/report';
import { formatDollars } from '../format';
import { COMMANDS } from '../ids';
import { describeCategory, scopeSummary } from './apiKeys';

/** One row of the view. A row has at most one of `tooltip` (plain text) and `markdownTooltip`. */
export interface ItemPresentation {
  /** The tree item's id, unique in the view (kept across refreshes so expansion and selection stay). */
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  markdownTooltip?: string;
  /** A codicon id, `~spin` included where it spins. */
  icon: string;
  contextValue: string;
}

/** A command a row runs when clicked: the fix for an empty or refused section. */
export interface NoteCommand {
  title: string;
  command: string;
}

/** A row that explains rather than lists: an empty section, a refusal, a billing total. */
export interface NotePresentation {
  label: string;
  icon: string;
  command?: NoteCommand;
}

export type AccountSection = 'apiKeys' | 'sshKeys' | 'secrets' | 'templates' | 'volumes' | 'serverless' | 'team' | 'billing';

/** The sections, in the order the view shows them. */
export const ACCOUNT_SECTIONS: Readonly<Record<AccountSection, { label: string; icon: string; context: string }>> = {
  apiKeys: { label: 'API Keys', icon: 'key', context: 'apiKeys' },
  sshKeys: { label: 'SSH Keys', icon: 'lock', context: 'sshKeys' },
  secrets: { label: 'Environment Variables', icon: 'symbol-variable', context: 'secrets' },
  templates: { label: 'Templates', icon: 'symbol-class', context: 'templates' },
  volumes: { label: 'Volumes', icon: 'database', context: 'volumes' },
  serverless: { label: 'Serverless', icon: 'cloud', context: 'serverless' },
  team: { label: 'Team', icon: 'organization', context: 'team' },
  billing: { label: 'Billing', icon: 'credit-card', context: 'billing' },
};

export function presentSection(section: AccountSection): ItemPresentation {
  const s = ACCOUNT_SECTIONS[section];
  return { id: `section-${section}`, label: s.label, icon: s.icon, contextValue: s.context };
}

/** The sections that say how to fill them when empty (an empty Team or Billing section says enough by itself). */
export type FillableSection = Exclude<AccountSection, 'team' | 'billing'>;

/** What an empty section says, with the command that fills it. */
export const EMPTY_SECTION_NOTES: Readonly<Record<FillableSection, NotePresentation>> = {
  apiKeys: { label: 'No API keys. Create a scoped one…', icon: 'add', command: { title: 'Create', command: COMMANDS.createApiKey } },
  sshKeys: { label: 'No SSH keys. Add one…', icon: 'add', command: { title: 'Add', command: COMMANDS.addSshKey } },
  secrets: {
    label: 'No environment variables. Add one (such as HF_TOKEN)…',
    icon: 'add',
    command: { title: 'Add', command: COMMANDS.addSecret },
  },
  templates: {
    label: 'No templates of your own. Save an instance as one…',
    icon: 'add',
    command: { title: 'Save', command: COMMANDS.saveAsTemplate },
  },
  volumes: { label: 'No volumes. Create one…', icon: 'add', command: { title: 'Create', command: COMMANDS.createVolume } },
  serverless: {
    label: 'No serverless endpoints. Create one…',
    icon: 'add',
    command: { title: 'Create', command: COMMANDS.createEndpoint },
  },
};

/**
 * What a section that could not be read says instead of its rows: a missing permission names it and
 * offers another key; anything else shows the error and offers a retry.
 */
export function explainSectionError(error: unknown): NotePresentation {
  if (error instanceof ApiError && error.kind === 'forbidden' && error.reason !== 'two_factor') {
    const what = error.permission ? `'${error.permission}' (${describeCategory(error.permission)})` : 'the permission this needs';
    return { label: `This API key lacks ${what}.`, icon: 'circle-slash', command: { title: 'Set API Key', command: COMMANDS.setApiKey } };
  }
  return {
    label: error instanceof Error ? error.message : String(error),
    icon: 'error',
    command: { title: 'Retry', command: COMMANDS.refresh },
  };
}

/** An API key; `inUse` when GPU Rental is signed in with it, which the view may not offer to delete. */
export function presentApiKey(key: ApiKey, inUse: boolean): ItemPresentation {
  const categories = key.rights ? Object.keys(key.rights.api) : undefined;
  const tooltip = key.unreadable
    ? { tooltip: `API key ${key.id}: the service's record for it could not be read (Show Logs says which field). It can still be deleted.` }
    : {
        markdownTooltip: [
          `**${key.name || `API key ${key.id}`}** (id ${key.id})`,
          categories ? categories.map((c) => `- \`${c}\`: ${describeCategory(c)}`).join('\n') : 'Full access to the account.',
          inUse ? '_GPU Rental is signed in with this key; it cannot be deleted here._' : '',
        ].join('\n\n'),
      };
  return {
    id: `apikey-${key.id}`,
    label: key.unreadable ? `#${key.id} (details unreadable)` : key.name || `key ${key.id}`,
    // An unreadable key's rights are not known: never call it full access.
    description: `${key.unreadable ? 'rights unknown' : scopeSummary(key)}${inUse ? ' · in use here' : ''}`,
    ...tooltip,
    icon: inUse ? 'pass-filled' : key.unreadable ? 'warning' : 'key',
    contextValue: inUse ? 'apiKeyInUse' : 'apiKey',
  };
}

/** An SSH key, named by its comment when it has one, described by its type and the end of its body. */
export function presentSshKey(key: SshKey): ItemPresentation {
  const [type, body, ...comment] = key.public_key.split(/\s+/);
  return {
    id: `sshkey-${key.id}`,
    label: key.unreadable ? `#${key.id} (details unreadable)` : comment.join(' ') || key.name || `key ${key.id}`,
    description: key.unreadable ? 'public key unknown' : `${type ?? ''} …${(body ?? '').slice(-12)}`,
    tooltip: key.unreadable
      ? `SSH key ${key.id}: the service's record for it could not be read (Show Logs says which field). It can still be deleted.`
      : key.public_key,
    icon: key.unreadable ? 'warning' : 'lock',
    contextValue: 'sshKey',
  };
}

/** One of the account's own templates: its image and the start of its hash. */
export function presentTemplate(template: Template): ItemPresentation {
  const image = `${template.image ?? ''}${template.tag ? `:${template.tag}` : ''}`;
  return {
    id: `template-${template.id}`,
    label: template.name,
    description: `${image} · ${template.hash_id.slice(0, 8)}`,
    markdownTooltip: [
      `**${template.name}** (hash \`${template.hash_id}\`)`,
      `Image: \`${image}\``,
      template.recommended_disk_space ? `Disk: ${template.recommended_disk_space} GB` : '',
      template.onstart ? `Start-up script: ${template.onstart.length} characters` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
    icon: 'symbol-class',
    contextValue: 'template',
  };
}

/** A volume: size, what it costs per hour, status and the instances using it (which keep it from being deleted). */
export function presentVolume(volume: Volume): ItemPresentation {
  const used = volume.instances?.length ? ` · used by #${volume.instances.join(', #')}` : '';
  const cost = volume.storage_total_cost ? ` · ${formatDollars(volume.storage_total_cost)}/h` : '';
  return {
    id: `volume-${volume.id}`,
    label: volume.unreadable ? `#${volume.id} (details unreadable)` : volume.label || `volume ${volume.id}`,
    description: volume.unreadable ? 'details unreadable' : `${volume.disk_space ?? '?'} GB${cost} · ${volume.status ?? 'unknown'}${used}`,
    tooltip: volume.unreadable
      ? `Volume ${volume.id}: the service's record for it could not be read (Show Logs says which field). It bills until deleted, and can still be deleted (the service refuses while an instance uses it).`
      : `Volume ${volume.id}${volume.geolocation ? ` in ${volume.geolocation}` : ''}, machine ${volume.machine_id ?? '?'}. It bills until deleted.`,
    icon: volume.unreadable ? 'warning' : 'database',
    contextValue: volume.instances?.length ? 'volumeInUse' : 'volume',
  };
}

/** A serverless endpoint with its worker groups: state, worker range, target load and how many groups. */
export function presentEndpoint(endpoint: Endpoint, groups: readonly WorkerGroup[]): ItemPresentation {
  return {
    id: `endpoint-${endpoint.id}`,
    label: endpoint.endpoint_name,
    description: `${endpoint.endpoint_state ?? 'active'} · workers ${endpoint.cold_workers ?? 0}-${endpoint.max_workers ?? '?'} · target ${Math.round((endpoint.target_util ?? 0) * 100)} % · ${groups.length} group${groups.length === 1 ? '' : 's'}`,
    icon: 'cloud',
    contextValue: 'endpoint',
  };
}

/** The worker groups an endpoint owns: by id, or by name for groups the service lists without one. */
export function endpointGroups(endpoint: Endpoint, groups: readonly WorkerGroup[]): WorkerGroup[] {
  return groups.filter((g) => g.endpoint_id === endpoint.id || (g.endpoint_id == null && g.endpoint_name === endpoint.endpoint_name));
}

/** The row under an endpoint that lists the workers its autoscaler runs now. */
export function presentEndpointWorkers(endpoint: Endpoint): ItemPresentation {
  return {
    id: `endpoint-${endpoint.id}-workers`,
    label: 'Workers',
    tooltip: 'The instances serving this endpoint now. Expand again (or Refresh) to read them anew.',
    icon: 'server',
    contextValue: 'endpointWorkers',
  };
}

/** A worker group: its template, worker range and GPU memory. */
export function presentWorkerGroup(group: WorkerGroup): ItemPresentation {
  return {
    id: `workergroup-${group.id}`,
    label: `worker group ${group.id}`,
    description: `template ${(group.template_hash ?? String(group.template_id ?? '?')).slice(0, 8)} · workers ${group.cold_workers ?? 0}-${group.max_workers ?? '?'}${group.gpu_ram ? ` · ${group.gpu_ram} GB GPU RAM` : ''}`,
    icon: 'server-process',
    contextValue: 'workerGroup',
  };
}

/** One line about a worker: status, load and requests, as far as the service says. */
export function workerSummary(w: ServerlessWorker): string {
  const parts = [w.status ?? 'unknown'];
  if (typeof w.cur_load === 'number') parts.push(`load ${Math.round(w.cur_load * 10) / 10}`);
  if (typeof w.reqs_working === 'number') parts.push(`${w.reqs_working} request${w.reqs_working === 1 ? '' : 's'} in flight`);
  if (typeof w.perf === 'number') parts.push(`perf ${Math.round(w.perf)}`);
  return parts.join(' · ');
}

/**
 * A worker under `owner` (the id of the endpoint's Workers row or of a group), since the same worker
 * shows under both. The tooltip gives its start time in the local time zone.
 */
export function presentWorker(worker: ServerlessWorker, owner: string): ItemPresentation {
  const description = workerSummary(worker);
  const since = worker.created_at
    ? `\nsince ${new Date(typeof worker.created_at === 'number' ? worker.created_at * 1000 : worker.created_at).toLocaleString()}`
    : '';
  return {
    id: `${owner}-worker-${worker.id}`,
    label: `worker #${worker.id}`,
    description,
    tooltip: `${description}${worker.url ? `\n${worker.url}` : ''}${since}`,
    icon: worker.status === 'idle' || worker.status === 'running' ? 'pass' : 'loading~spin',
    contextValue: 'worker',
  };
}

/** What a group or endpoint without workers says. */
export const NO_WORKERS_NOTE: NotePresentation = { label: 'No workers now (the autoscaler starts them as load needs).', icon: 'info' };

/** A team member: email, else user name, else id; described by their roles. */
export function presentTeamMember(member: TeamMember): ItemPresentation {
  return {
    id: `member-${member.id}`,
    label: member.email || member.username || `user ${member.id}`,
    description: member.roles.join(', ') || 'no role',
    icon: 'person',
    contextValue: 'teamMember',
  };
}

/** A team role and the permission categories it grants; a role without a permission object grants all. */
export function presentTeamRole(role: TeamRole): ItemPresentation {
  const api = (role.permissions as { api?: Record<string, unknown> } | null | undefined)?.api;
  return {
    id: `role-${role.id ?? role.name}`,
    label: role.name,
    description: `role · ${api ? Object.keys(api).join(', ') || 'no permissions' : 'all permissions'}`,
    icon: 'shield',
    contextValue: 'teamRole',
  };
}

/** The Billing section's rows: charges over `days` days, the five largest sources, credits, and the full report. */
export function billingNotes(summary: BillingSummary, days: number): NotePresentation[] {
  const open = { title: 'Open Billing Report', command: COMMANDS.showBilling };
  return [
    { label: `Charges, last ${days} days: ${formatDollars(summary.charges)}`, icon: 'arrow-down', command: open },
    ...summary.bySource.slice(0, 5).map((r) => ({ label: `  ${r.source}: ${formatDollars(r.amount)}`, icon: 'dash', command: open })),
    { label: `Credits and payments: ${formatDollars(summary.credits)}`, icon: 'arrow-up', command: open },
    { label: 'Open the full report…', icon: 'book', command: open },
  ];
}
