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
import { l10n } from '../l10n';

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
  apiKeys: { label: l10n.t('API Keys'), icon: 'key', context: 'apiKeys' },
  sshKeys: { label: l10n.t('SSH Keys'), icon: 'lock', context: 'sshKeys' },
  secrets: { label: l10n.t('Environment Variables'), icon: 'symbol-variable', context: 'secrets' },
  templates: { label: l10n.t('Templates'), icon: 'symbol-class', context: 'templates' },
  volumes: { label: l10n.t('Volumes'), icon: 'database', context: 'volumes' },
  serverless: { label: l10n.t('Serverless'), icon: 'cloud', context: 'serverless' },
  team: { label: l10n.t('Team'), icon: 'organization', context: 'team' },
  billing: { label: l10n.t('Billing'), icon: 'credit-card', context: 'billing' },
};

export function presentSection(section: AccountSection): ItemPresentation {
  const s = ACCOUNT_SECTIONS[section];
  return { id: `section-${section}`, label: s.label, icon: s.icon, contextValue: s.context };
}

/** The sections that say how to fill them when empty (an empty Team or Billing section says enough by itself). */
export type FillableSection = Exclude<AccountSection, 'team' | 'billing'>;

/** What an empty section says, with the command that fills it. */
export const EMPTY_SECTION_NOTES: Readonly<Record<FillableSection, NotePresentation>> = {
  apiKeys: {
    label: l10n.t('No API keys. Create a scoped one…'),
    icon: 'add',
    command: { title: l10n.t('Create'), command: COMMANDS.createApiKey },
  },
  sshKeys: { label: l10n.t('No SSH keys. Add one…'), icon: 'add', command: { title: l10n.t('Add'), command: COMMANDS.addSshKey } },
  secrets: {
    label: l10n.t('No environment variables. Add one (such as HF_TOKEN)…'),
    icon: 'add',
    command: { title: l10n.t('Add'), command: COMMANDS.addSecret },
  },
  templates: {
    label: l10n.t('No templates of your own. Save an instance as one…'),
    icon: 'add',
    command: { title: l10n.t('Save'), command: COMMANDS.saveAsTemplate },
  },
  volumes: { label: l10n.t('No volumes. Create one…'), icon: 'add', command: { title: l10n.t('Create'), command: COMMANDS.createVolume } },
  serverless: {
    label: l10n.t('No serverless endpoints. Create one…'),
    icon: 'add',
    command: { title: l10n.t('Create'), command: COMMANDS.createEndpoint },
  },
};

/**
 * What a section that could not be read says instead of its rows: a missing permission names it and
 * offers another key; anything else shows the error and offers a retry.
 */
export function explainSectionError(error: unknown): NotePresentation {
  if (error instanceof ApiError && error.kind === 'forbidden' && error.reason !== 'two_factor') {
    const what = error.permission ? `'${error.permission}' (${describeCategory(error.permission)})` : l10n.t('the permission this needs');
    return {
      label: l10n.t('This API key lacks {0}.', what),
      icon: 'circle-slash',
      command: { title: l10n.t('Set API Key'), command: COMMANDS.setApiKey },
    };
  }
  return {
    label: error instanceof Error ? error.message : String(error),
    icon: 'error',
    command: { title: l10n.t('Retry'), command: COMMANDS.refresh },
  };
}

/** An API key; `inUse` when GPU Rental is signed in with it, which the view may not offer to delete. */
export function presentApiKey(key: ApiKey, inUse: boolean): ItemPresentation {
  const categories = key.rights ? Object.keys(key.rights.api) : undefined;
  const tooltip = key.unreadable
    ? {
        tooltip: l10n.t(
          "API key {0}: the service's record for it could not be read (Show Logs says which field). It can still be deleted.",
          key.id,
        ),
      }
    : {
        markdownTooltip: [
          `**${key.name || l10n.t('API key {0}', key.id)}** (id ${key.id})`,
          categories ? categories.map((c) => `- \`${c}\`: ${describeCategory(c)}`).join('\n') : l10n.t('Full access to the account.'),
          inUse ? l10n.t('_GPU Rental is signed in with this key; it cannot be deleted here._') : '',
        ].join('\n\n'),
      };
  return {
    id: `apikey-${key.id}`,
    label: key.unreadable ? l10n.t('#{0} (details unreadable)', key.id) : key.name || `key ${key.id}`,
    // An unreadable key's rights are not known: never call it full access.
    description: [key.unreadable ? l10n.t('rights unknown') : scopeSummary(key), ...(inUse ? [l10n.t('in use here')] : [])].join(' · '),
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
    label: key.unreadable ? l10n.t('#{0} (details unreadable)', key.id) : comment.join(' ') || key.name || `key ${key.id}`,
    description: key.unreadable ? l10n.t('public key unknown') : `${type ?? ''} …${(body ?? '').slice(-12)}`,
    tooltip: key.unreadable
      ? l10n.t("SSH key {0}: the service's record for it could not be read (Show Logs says which field). It can still be deleted.", key.id)
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
      l10n.t('Image: `{0}`', image),
      template.recommended_disk_space ? l10n.t('Disk: {0} GB', template.recommended_disk_space) : '',
      template.onstart ? l10n.t('Start-up script: {0} characters', template.onstart.length) : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
    icon: 'symbol-class',
    contextValue: 'template',
  };
}

/** A volume: size, what it costs per hour, status and the instances using it (which keep it from being deleted). */
export function presentVolume(volume: Volume): ItemPresentation {
  const used = volume.instances?.length ? ` · ${l10n.t('used by #{0}', volume.instances.join(', #'))}` : '';
  const cost = volume.storage_total_cost ? ` · ${formatDollars(volume.storage_total_cost)}/h` : '';
  return {
    id: `volume-${volume.id}`,
    label: volume.unreadable ? l10n.t('#{0} (details unreadable)', volume.id) : volume.label || `volume ${volume.id}`,
    description: volume.unreadable
      ? l10n.t('details unreadable')
      : `${volume.disk_space ?? '?'} GB${cost} · ${volume.status ?? 'unknown'}${used}`,
    tooltip: volume.unreadable
      ? l10n.t(
          "Volume {0}: the service's record for it could not be read (Show Logs says which field). It bills until deleted, and can still be deleted (the service refuses while an instance uses it).",
          volume.id,
        )
      : volume.geolocation
        ? l10n.t('Volume {0} in {1}, machine {2}. It bills until deleted.', volume.id, volume.geolocation, volume.machine_id ?? '?')
        : l10n.t('Volume {0}, machine {1}. It bills until deleted.', volume.id, volume.machine_id ?? '?'),
    icon: volume.unreadable ? 'warning' : 'database',
    contextValue: volume.instances?.length ? 'volumeInUse' : 'volume',
  };
}

/** A serverless endpoint with its worker groups: state, worker range, target load and how many groups. */
export function presentEndpoint(endpoint: Endpoint, groups: readonly WorkerGroup[]): ItemPresentation {
  return {
    id: `endpoint-${endpoint.id}`,
    label: endpoint.endpoint_name,
    description: [
      endpoint.endpoint_state ?? 'active',
      l10n.t('workers {0}-{1}', endpoint.cold_workers ?? 0, endpoint.max_workers ?? '?'),
      l10n.t('target {0} %', Math.round((endpoint.target_util ?? 0) * 100)),
      groups.length === 1 ? l10n.t('1 group') : l10n.t('{0} groups', groups.length),
    ].join(' · '),
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
    label: l10n.t('Workers'),
    tooltip: l10n.t('The instances serving this endpoint now. Expand again (or Refresh) to read them anew.'),
    icon: 'server',
    contextValue: 'endpointWorkers',
  };
}

/** A worker group: its template, worker range and GPU memory. */
export function presentWorkerGroup(group: WorkerGroup): ItemPresentation {
  return {
    id: `workergroup-${group.id}`,
    label: l10n.t('worker group {0}', group.id),
    description: [
      l10n.t('template {0}', (group.template_hash ?? String(group.template_id ?? '?')).slice(0, 8)),
      l10n.t('workers {0}-{1}', group.cold_workers ?? 0, group.max_workers ?? '?'),
      ...(group.gpu_ram ? [l10n.t('{0} GB GPU RAM', group.gpu_ram)] : []),
    ].join(' · '),
    icon: 'server-process',
    contextValue: 'workerGroup',
  };
}

/** One line about a worker: status, load and requests, as far as the service says. */
export function workerSummary(w: ServerlessWorker): string {
  const parts = [w.status ?? 'unknown'];
  if (typeof w.cur_load === 'number') parts.push(`load ${Math.round(w.cur_load * 10) / 10}`);
  if (typeof w.reqs_working === 'number')
    parts.push(w.reqs_working === 1 ? l10n.t('1 request in flight') : l10n.t('{0} requests in flight', w.reqs_working));
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
    label: l10n.t('worker #{0}', worker.id),
    description,
    tooltip: `${description}${worker.url ? `\n${worker.url}` : ''}${since}`,
    icon: worker.status === 'idle' || worker.status === 'running' ? 'pass' : 'loading~spin',
    contextValue: 'worker',
  };
}

/** What a group or endpoint without workers says. */
export const NO_WORKERS_NOTE: NotePresentation = {
  label: l10n.t('No workers now (the autoscaler starts them as load needs).'),
  icon: 'info',
};

/** A team member: email, else user name, else id; described by their roles. */
export function presentTeamMember(member: TeamMember): ItemPresentation {
  return {
    id: `member-${member.id}`,
    label: member.email || member.username || `user ${member.id}`,
    description: member.roles.join(', ') || l10n.t('no role'),
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
    description: l10n.t('role · {0}', api ? Object.keys(api).join(', ') || l10n.t('no permissions') : l10n.t('all permissions')),
    icon: 'shield',
    contextValue: 'teamRole',
  };
}

/** The Billing section's rows: charges over `days` days, the five largest sources, credits, and the full report. */
export function billingNotes(summary: BillingSummary, days: number): NotePresentation[] {
  const open = { title: l10n.t('Open Billing Report'), command: COMMANDS.showBilling };
  return [
    { label: l10n.t('Charges, last {0} days: {1}', days, formatDollars(summary.charges)), icon: 'arrow-down', command: open },
    ...summary.bySource.slice(0, 5).map((r) => ({ label: `  ${r.source}: ${formatDollars(r.amount)}`, icon: 'dash', command: open })),
    { label: l10n.t('Credits and payments: {0}', formatDollars(summary.credits)), icon: 'arrow-up', command: open },
    { label: l10n.t('Open the full report…'), icon: 'book', command: open },
  ];
}
