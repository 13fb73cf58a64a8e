import assert from 'node:assert/strict';
import {
  ACCOUNT_SECTIONS,
  EMPTY_SECTION_NOTES,
  NO_WORKERS_NOTE,
  billingNotes,
  endpointGroups,
  explainSectionError,
  presentApiKey,
  presentEndpoint,
  presentEndpointWorkers,
  presentSection,
  presentSshKey,
  presentTeamMember,
  presentTeamRole,
  presentTemplate,
  presentVolume,
  presentWorker,
  presentWorkerGroup,
  workerSummary,
} from '../../../src/core/account/present';
import { unreadableApiKey, unreadableSshKey, type ApiKey } from '../../../src/core/api/account';
import { ApiError } from '../../../src/core/api/errors';
import type { Endpoint, WorkerGroup } from '../../../src/core/api/serverless';
import type { Template } from '../../../src/core/api/templates';
import { unreadableVolume } from '../../../src/core/api/volumes';

// The Account view's integration and e2e tests find rows by these texts, and the menus' `when`
// clauses read the context values: every string here is pinned exactly.

describe('account view: sections and notes', () => {
  it('lists the eight sections in order, each with its icon and context value', () => {
    assert.deepEqual(Object.keys(ACCOUNT_SECTIONS), [
      'apiKeys',
      'sshKeys',
      'secrets',
      'templates',
      'volumes',
      'serverless',
      'team',
      'billing',
    ]);
    assert.deepEqual(presentSection('apiKeys'), { id: 'section-apiKeys', label: 'API Keys', icon: 'key', contextValue: 'apiKeys' });
    assert.deepEqual(presentSection('billing'), { id: 'section-billing', label: 'Billing', icon: 'credit-card', contextValue: 'billing' });
    assert.deepEqual(
      Object.values(ACCOUNT_SECTIONS).map((s) => s.label),
      ['API Keys', 'SSH Keys', 'Environment Variables', 'Templates', 'Volumes', 'Serverless', 'Team', 'Billing'],
    );
  });

  it('says how to fill an empty section, with the command that does', () => {
    assert.deepEqual(EMPTY_SECTION_NOTES.apiKeys, {
      label: 'No API keys. Create a scoped one…',
      icon: 'add',
      command: { title: 'Create', command: 'gpuRental.createApiKey' },
    });
    assert.deepEqual(EMPTY_SECTION_NOTES.sshKeys, {
      label: 'No SSH keys. Add one…',
      icon: 'add',
      command: { title: 'Add', command: 'gpuRental.addSshKey' },
    });
    assert.deepEqual(EMPTY_SECTION_NOTES.secrets, {
      label: 'No environment variables. Add one (such as HF_TOKEN)…',
      icon: 'add',
      command: { title: 'Add', command: 'gpuRental.addSecret' },
    });
    assert.deepEqual(EMPTY_SECTION_NOTES.templates, {
      label: 'No templates of your own. Save an instance as one…',
      icon: 'add',
      command: { title: 'Save', command: 'gpuRental.saveAsTemplate' },
    });
    assert.deepEqual(EMPTY_SECTION_NOTES.volumes, {
      label: 'No volumes. Create one…',
      icon: 'add',
      command: { title: 'Create', command: 'gpuRental.createVolume' },
    });
    assert.deepEqual(EMPTY_SECTION_NOTES.serverless, {
      label: 'No serverless endpoints. Create one…',
      icon: 'add',
      command: { title: 'Create', command: 'gpuRental.createEndpoint' },
    });
    assert.deepEqual(NO_WORKERS_NOTE, { label: 'No workers now (the autoscaler starts them as load needs).', icon: 'info' });
  });

  it('names the permission a refused section lacks, and offers a retry for anything else', () => {
    const refused = new ApiError({
      kind: 'forbidden',
      action: 'read team',
      method: 'GET',
      path: '/api/v0/team/members/',
      status: 403,
      permission: 'team_read',
    });
    const note = explainSectionError(refused);
    assert.match(note.label, /^This API key lacks 'team_read' \(.+\)\.$/);
    assert.equal(note.icon, 'circle-slash');
    assert.deepEqual(note.command, { title: 'Set API Key', command: 'gpuRental.setApiKey' });

    const unnamed = new ApiError({ kind: 'forbidden', action: 'read team', method: 'GET', path: '/x', status: 403 });
    assert.equal(explainSectionError(unnamed).label, 'This API key lacks the permission this needs.');

    // A two-factor refusal is not a missing permission: another key would not help.
    const twoFactor = new ApiError({
      kind: 'forbidden',
      action: 'read team',
      method: 'GET',
      path: '/x',
      status: 403,
      reason: 'two_factor',
    });
    assert.equal(explainSectionError(twoFactor).icon, 'error');
    assert.deepEqual(explainSectionError(twoFactor).command, { title: 'Retry', command: 'gpuRental.refresh' });

    assert.deepEqual(explainSectionError(new Error('socket hang up')), {
      label: 'socket hang up',
      icon: 'error',
      command: { title: 'Retry', command: 'gpuRental.refresh' },
    });
    assert.equal(explainSectionError('plain').label, 'plain');
  });

  it('sums billing: charges, the five largest sources, credits, and the report', () => {
    const notes = billingNotes(
      {
        charges: 12.345,
        credits: 100,
        bySource: [6, 5, 4, 3, 2, 1].map((amount, i) => ({ source: `instance-${i + 1}`, amount, count: 1 })),
      },
      30,
    );
    const open = { title: 'Open Billing Report', command: 'gpuRental.showBilling' };
    assert.deepEqual(notes[0], { label: 'Charges, last 30 days: $12.35', icon: 'arrow-down', command: open });
    assert.deepEqual(
      notes.slice(1, -2).map((n) => [n.label, n.icon]),
      [
        ['  instance-1: $6.00', 'dash'],
        ['  instance-2: $5.00', 'dash'],
        ['  instance-3: $4.00', 'dash'],
        ['  instance-4: $3.00', 'dash'],
        ['  instance-5: $2.00', 'dash'],
      ],
    );
    assert.deepEqual(notes.at(-2), { label: 'Credits and payments: $100.00', icon: 'arrow-up', command: open });
    assert.deepEqual(notes.at(-1), { label: 'Open the full report…', icon: 'book', command: open });
    assert.ok(notes.every((n) => n.command?.command === 'gpuRental.showBilling'));
  });
});

describe('account view: keys', () => {
  const scoped: ApiKey = { id: 7, name: 'ci', rights: { api: { instance_read: {}, user_read: {} } } };

  it('describes a scoped API key by its categories, with one line each in the tooltip', () => {
    const p = presentApiKey(scoped, false);
    assert.equal(p.id, 'apikey-7');
    assert.equal(p.label, 'ci');
    assert.equal(p.description, 'read-only: instance_read, user_read');
    assert.equal(p.tooltip, undefined);
    const [title, lines, ...rest] = (p.markdownTooltip ?? '').split('\n\n');
    assert.equal(title, '**ci** (id 7)');
    assert.match(lines ?? '', /^- `instance_read`: .+\n- `user_read`: .+$/);
    assert.deepEqual(rest, ['']);
    assert.equal(p.icon, 'key');
    assert.equal(p.contextValue, 'apiKey');
  });

  it('marks the key in use, which the menus may not offer to delete', () => {
    const p = presentApiKey({ id: 8, rights: null }, true);
    assert.equal(p.label, 'key 8');
    assert.equal(p.description, 'full access · in use here');
    assert.equal(
      p.markdownTooltip,
      '**API key 8** (id 8)\n\nFull access to the account.\n\n_GPU Rental is signed in with this key; it cannot be deleted here._',
    );
    assert.equal(p.icon, 'pass-filled');
    assert.equal(p.contextValue, 'apiKeyInUse');
  });

  it('never calls an unreadable API key full access, and says it can still be deleted', () => {
    const p = presentApiKey(unreadableApiKey(9), false);
    assert.equal(p.label, '#9 (details unreadable)');
    assert.equal(p.description, 'rights unknown');
    assert.equal(p.markdownTooltip, undefined);
    assert.equal(
      p.tooltip,
      "API key 9: the service's record for it could not be read (Show Logs says which field). It can still be deleted.",
    );
    assert.equal(p.icon, 'warning');
    assert.equal(p.contextValue, 'apiKey');
  });

  it('names an SSH key by its comment, else its name, and shows the end of its body', () => {
    const body = 'AAAAC3NzaC1lZDI1NTE5AAAAIEh4bmOm9Ws8bc3Lw6vYgZzl6m2kX6v3K0dJq2k3Yq8B';
    const p = presentSshKey({ id: 3, public_key: `ssh-ed25519 ${body} me@laptop two`, name: 'named', created_at: undefined });
    assert.deepEqual(p, {
      id: 'sshkey-3',
      label: 'me@laptop two',
      description: 'ssh-ed25519 …K0dJq2k3Yq8B',
      tooltip: `ssh-ed25519 ${body} me@laptop two`,
      icon: 'lock',
      contextValue: 'sshKey',
    });
    assert.equal(presentSshKey({ id: 4, public_key: `ssh-rsa ${body}`, name: 'work', created_at: undefined }).label, 'work');
    assert.equal(presentSshKey({ id: 5, public_key: `ssh-rsa ${body}`, name: undefined, created_at: undefined }).label, 'key 5');
  });

  it('lists an unreadable SSH key by id, its public key unknown', () => {
    assert.deepEqual(presentSshKey(unreadableSshKey(6)), {
      id: 'sshkey-6',
      label: '#6 (details unreadable)',
      description: 'public key unknown',
      tooltip: "SSH key 6: the service's record for it could not be read (Show Logs says which field). It can still be deleted.",
      icon: 'warning',
      contextValue: 'sshKey',
    });
  });
});

describe('account view: templates and volumes', () => {
  const template = {
    id: 11,
    hash_id: '0123456789abcdef',
    name: 'pytorch',
    image: 'pytorch/pytorch',
    tag: '2.4',
    recommended_disk_space: 40,
    onstart: 'echo hi',
  } as Template;

  it('shows a template by image, tag and the start of its hash', () => {
    assert.deepEqual(presentTemplate(template), {
      id: 'template-11',
      label: 'pytorch',
      description: 'pytorch/pytorch:2.4 · 01234567',
      markdownTooltip:
        '**pytorch** (hash `0123456789abcdef`)\n\nImage: `pytorch/pytorch:2.4`\n\nDisk: 40 GB\n\nStart-up script: 7 characters',
      icon: 'symbol-class',
      contextValue: 'template',
    });
  });

  it('leaves out what a template does not set', () => {
    const bare = presentTemplate({ id: 12, hash_id: 'feedface00', name: 'bare' } as Template);
    assert.equal(bare.description, ' · feedface');
    assert.equal(bare.markdownTooltip, '**bare** (hash `feedface00`)\n\nImage: ``');
  });

  it('shows a volume with its size, hourly cost, status and the instances using it', () => {
    const p = presentVolume({
      id: 21,
      label: 'data',
      status: 'in_use',
      disk_space: 20,
      instances: [5, 6],
      machine_id: 99,
      geolocation: 'US',
      storage_total_cost: 0.0123,
    });
    assert.deepEqual(p, {
      id: 'volume-21',
      label: 'data',
      description: '20 GB · $0.012/h · in_use · used by #5, #6',
      tooltip: 'Volume 21 in US, machine 99. It bills until deleted.',
      icon: 'database',
      contextValue: 'volumeInUse',
    });
  });

  it('fills in what a volume record leaves out', () => {
    const p = presentVolume({ id: 22 });
    assert.equal(p.label, 'volume 22');
    assert.equal(p.description, '? GB · unknown');
    assert.equal(p.tooltip, 'Volume 22, machine ?. It bills until deleted.');
    assert.equal(p.contextValue, 'volume');
  });

  it('lists an unreadable volume by id, and says it bills until deleted', () => {
    assert.deepEqual(presentVolume(unreadableVolume(23)), {
      id: 'volume-23',
      label: '#23 (details unreadable)',
      description: 'details unreadable',
      tooltip:
        "Volume 23: the service's record for it could not be read (Show Logs says which field). It bills until deleted, and can still be deleted (the service refuses while an instance uses it).",
      icon: 'warning',
      contextValue: 'volume',
    });
  });
});

describe('account view: serverless', () => {
  const endpoint = { id: 31, endpoint_name: 'llm', cold_workers: 0, max_workers: 5, target_util: 0.75 } as Endpoint;
  const group = { id: 41, endpoint_id: 31, template_hash: 'abcdef0123456789', cold_workers: 0, max_workers: 4, gpu_ram: 24 } as WorkerGroup;

  it('describes an endpoint: state, worker range, target and its groups', () => {
    assert.deepEqual(presentEndpoint(endpoint, [group]), {
      id: 'endpoint-31',
      label: 'llm',
      description: 'active · workers 0-5 · target 75 % · 1 group',
      icon: 'cloud',
      contextValue: 'endpoint',
    });
    assert.equal(
      presentEndpoint({ id: 32, endpoint_name: 'x', endpoint_state: 'suspended' } as Endpoint, []).description,
      'suspended · workers 0-? · target 0 % · 0 groups',
    );
  });

  it("finds an endpoint's groups by id, or by name when the group has no endpoint id", () => {
    const byName = { id: 42, endpoint_name: 'llm' } as WorkerGroup;
    const other = { id: 43, endpoint_id: 99, endpoint_name: 'llm' } as WorkerGroup;
    assert.deepEqual(
      endpointGroups(endpoint, [group, byName, other]).map((g) => g.id),
      [41, 42],
    );
  });

  it('describes a worker group by template, worker range and GPU memory', () => {
    assert.deepEqual(presentWorkerGroup(group), {
      id: 'workergroup-41',
      label: 'worker group 41',
      description: 'template abcdef01 · workers 0-4 · 24 GB GPU RAM',
      icon: 'server-process',
      contextValue: 'workerGroup',
    });
    assert.equal(presentWorkerGroup({ id: 44, template_id: 1234567890 } as WorkerGroup).description, 'template 12345678 · workers 0-?');
    assert.equal(presentWorkerGroup({ id: 45 } as WorkerGroup).description, 'template ? · workers 0-?');
  });

  it('gives an endpoint a Workers row, read anew when expanded', () => {
    assert.deepEqual(presentEndpointWorkers(endpoint), {
      id: 'endpoint-31-workers',
      label: 'Workers',
      tooltip: 'The instances serving this endpoint now. Expand again (or Refresh) to read them anew.',
      icon: 'server',
      contextValue: 'endpointWorkers',
    });
  });

  it('sums a worker up in one line, as far as the service says', () => {
    assert.equal(workerSummary({ id: 1 }), 'unknown');
    assert.equal(
      workerSummary({ id: 1, status: 'running', cur_load: 1.26, reqs_working: 1, perf: 99.6 }),
      'running · load 1.3 · 1 request in flight · perf 100',
    );
    assert.equal(workerSummary({ id: 1, status: 'idle', cur_load: 0, reqs_working: 2 }), 'idle · load 0 · 2 requests in flight');
  });

  it('shows a worker under its owner, with its address and start in the tooltip', () => {
    const createdAt = 1_790_000_000;
    const p = presentWorker({ id: 51, status: 'idle', url: 'http://10.0.0.1:8000', created_at: createdAt, cur_load: 0 }, 'endpoint-31');
    assert.deepEqual(p, {
      id: 'endpoint-31-worker-51',
      label: 'worker #51',
      description: 'idle · load 0',
      tooltip: `idle · load 0\nhttp://10.0.0.1:8000\nsince ${new Date(createdAt * 1000).toLocaleString()}`,
      icon: 'pass',
      contextValue: 'worker',
    });
    const loading = presentWorker({ id: 52, status: 'loading', created_at: '2026-11-01T12:00:00Z' }, 'workergroup-41');
    assert.equal(loading.id, 'workergroup-41-worker-52');
    assert.equal(loading.tooltip, `loading\nsince ${new Date('2026-11-01T12:00:00Z').toLocaleString()}`);
    assert.equal(loading.icon, 'loading~spin');
    assert.equal(presentWorker({ id: 53, status: 'running' }, 'x').icon, 'pass');
  });
});

describe('account view: team', () => {
  it('names a member by email, else user name, else id, described by their roles', () => {
    assert.deepEqual(presentTeamMember({ id: 61, email: 'ada@example.test', username: 'ada', roles: ['admin', 'viewers'] }), {
      id: 'member-61',
      label: 'ada@example.test',
      description: 'admin, viewers',
      icon: 'person',
      contextValue: 'teamMember',
    });
    assert.equal(presentTeamMember({ id: 62, username: 'bob', roles: [] }).label, 'bob');
    assert.equal(presentTeamMember({ id: 62, username: 'bob', roles: [] }).description, 'no role');
    assert.equal(presentTeamMember({ id: 63, roles: [] }).label, 'user 63');
  });

  it('describes a role by its permission categories; none set means all', () => {
    assert.deepEqual(presentTeamRole({ id: 71, name: 'viewers', permissions: { api: { instance_read: {}, user_read: {} } } }), {
      id: 'role-71',
      label: 'viewers',
      description: 'role · instance_read, user_read',
      icon: 'shield',
      contextValue: 'teamRole',
    });
    assert.equal(presentTeamRole({ name: 'owner', permissions: null }).id, 'role-owner');
    assert.equal(presentTeamRole({ name: 'owner', permissions: null }).description, 'role · all permissions');
    assert.equal(presentTeamRole({ name: 'empty', permissions: { api: {} } }).description, 'role · no permissions');
  });
});
