import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { chmod, lstat, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { Offer } from '../../src/core/api/offers';
import type { RemoteHandoff } from '../../src/ui/host/remote';
import { always, api, eventually, extensionApi, extensionLog, signIn, sim } from './support';

const run = promisify(execFile);
const HOME = process.env.GPU_RENTAL_TEST_HOME!;
const SSH_DIR = join(HOME, '.ssh');
const USER_CONFIG = join(SSH_DIR, 'config');
/** What the user had before: CRLF, a Host * block, a Match, a comment, no final newline. */
const USERS_OWN =
  '# my own settings\r\nHost *\r\n  ServerAliveInterval 5\r\nMatch host example.org\r\n  User me\r\nHost work\r\n  HostName 10.0.0.1';

type Record = { id: number; actual_status: string | null; ssh_port: number };
async function show(id: number): Promise<Record | null> {
  return ((await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as { instances: Record | null }).instances;
}

/** Rents through the API, as another client would. */
async function rent(): Promise<number> {
  const body = { rentable: { eq: true }, direct_port_count: { gte: 1 }, order: [['dph_total', 'asc']], limit: 1, type: 'on-demand' };
  const [offer] = ((await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] }).offers;
  const created = (await api('PUT', `/api/v0/asks/${offer!.id}/`, sim.key, {
    client_id: 'me',
    image: 'ubuntu:22.04',
    disk: 8,
    runtype: 'ssh_direct',
  })) as { new_contract: number };
  return created.new_contract;
}

/** Rented before any key is registered (so connect must attach one), and running. */
async function rentedAndRunning(): Promise<number> {
  const id = await rent();
  await eventually(async () => (await show(id))?.actual_status === 'running', 'the instance to run', 20_000);
  return id;
}

/** Runs `true` on the alias with real ssh and the user's config; resolves with the exit code and stderr. */
async function sshTrue(config: string, alias: string): Promise<{ code: number; stderr: string }> {
  try {
    await run('ssh', ['-F', config, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', alias, 'true']);
    return { code: 0, stderr: '' };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: e.code ?? 255, stderr: e.stderr ?? '' };
  }
}

/** Records what the extension hands to Remote-SSH instead of opening a window. */
function observedHandoff(installed?: string[]) {
  const calls: Array<{ uri: string; options: unknown }> = [];
  const installs: string[] = [];
  const handoff: RemoteHandoff = {
    installedIds: () => new Set(installed ?? vscode.extensions.all.map((e) => e.id.toLowerCase())),
    openFolder: async (uri, options) => void calls.push({ uri: uri.toString(true), options }),
    openEmptyWindow: async (authority) => void calls.push({ uri: authority, options: 'empty' }),
    installExtension: async (id) => void installs.push(id),
  };
  return { handoff, calls, installs };
}

function platforms(): { [alias: string]: string } {
  return vscode.workspace.getConfiguration('remote.SSH').get<{ [alias: string]: string }>('remotePlatform') ?? {};
}

async function afterMarkers(): Promise<string> {
  const text = await readFile(USER_CONFIG, 'utf8');
  return text.replace(/^# >>> gpu-rental[^\n]*\n[^\n]*\n# <<< gpu-rental <<<\r?\n/, '');
}

describe('connect: keys, the managed SSH config and the Remote-SSH handoff', function () {
  this.timeout(90_000);
  let id: number;
  let alias: string;
  const asked: string[] = [];

  before(async () => {
    const x = await signIn();
    await rm(SSH_DIR, { recursive: true, force: true });
    await mkdir(SSH_DIR, { recursive: true, mode: 0o700 });
    await writeFile(USER_CONFIG, USERS_OWN, { mode: 0o644 });
    id = await rentedAndRunning();
    alias = x.test.sshAlias(id);
  });
  beforeEach(async () => {
    const x = await signIn();
    asked.length = 0;
    x.test.answerPrompts({ confirm: async (message) => (asked.push(message), true) });
    await vscode.workspace.getConfiguration('gpuRental').update('ssh.connectVia', undefined, vscode.ConfigurationTarget.Global);
  });

  it('makes a key after asking, registers and attaches it, writes the entry, and opens /root on the alias in a new window', async () => {
    const x = await extensionApi();
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    const outcome = await vscode.commands.executeCommand('gpuRental.connect', id);
    assert.equal(outcome, 'opened');
    assert.match(asked.join('\n'), /No SSH key found/);

    const key = join(SSH_DIR, 'id_ed25519');
    assert.equal((await stat(key)).mode & 0o777, 0o600, 'the private key is 0600');
    assert.equal((await stat(join(SSH_DIR, 'gpu-rental'))).mode & 0o777, 0o700, 'the managed folder is 0700');
    const publicKey = (await readFile(`${key}.pub`, 'utf8')).trim().split(' ').slice(0, 2).join(' ');
    const onAccount = (await api('GET', '/api/v0/ssh/', sim.key)) as Array<{ public_key?: string; ssh_key?: string }>;
    assert.ok(JSON.stringify(onAccount).includes(publicKey), 'registered on the account');
    const onInstance = JSON.stringify(await api('GET', `/api/v0/instances/${id}/ssh/`, sim.key));
    assert.ok(onInstance.includes(publicKey.split(' ')[1]!), 'attached to the instance, which predates the key');

    assert.deepEqual(seen.calls, [{ uri: `vscode-remote://ssh-remote+${alias}/root`, options: { forceNewWindow: true } }]);
    assert.equal(platforms()[alias], 'linux');
    assert.equal(await afterMarkers(), USERS_OWN, "the user's config is byte-identical outside the markers");
    assert.equal((await sshTrue(USER_CONFIG, alias)).code, 0, 'ssh -F <config> <alias> true works (direct address)');

    const privateBody = (await readFile(key, 'utf8')).split('\n')[1]!;
    assert.ok(!(await extensionLog()).includes(privateBody), 'the private key never reaches the log');
  });

  it('reaches the instance through the proxy address too', async () => {
    const x = await extensionApi();
    x.test.observeHandoff(observedHandoff().handoff);
    await vscode.workspace.getConfiguration('gpuRental').update('ssh.connectVia', 'proxy', vscode.ConfigurationTarget.Global);
    assert.equal(await vscode.commands.executeCommand('gpuRental.connect', id), 'opened');
    const entry = await readFile(join(SSH_DIR, 'gpu-rental', `${alias}.conf`), 'utf8');
    assert.match(entry, new RegExp(`Port ${(await show(id))!.ssh_port}\\n`));
    assert.match(entry, /proxy address/);
    assert.equal((await sshTrue(USER_CONFIG, alias)).code, 0);
  });

  it('refuses a key that was never registered', async () => {
    const stranger = join(HOME, 'stranger');
    await rm(stranger, { force: true });
    await rm(`${stranger}.pub`, { force: true });
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
    const entry = await readFile(join(SSH_DIR, 'gpu-rental', `${alias}.conf`), 'utf8');
    const other = join(HOME, 'stranger.conf');
    await writeFile(other, entry.replace(/IdentityFile .*/, `IdentityFile ${stranger}`));
    const result = await sshTrue(other, alias);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /Permission denied/);
  });

  // What is asked before a stopped instance starts, and that declining starts nothing: test/unit/ssh/connect.test.ts.
  it('starts a stopped instance after asking, waits, and connects to its new port', async () => {
    const x = await extensionApi();
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    await api('PUT', `/api/v0/instances/${id}/`, sim.key, { state: 'stopped' });
    await eventually(async () => (await show(id))?.actual_status === 'stopped', 'stopped', 20_000);
    await x.test.refreshInstances();
    const before = await readFile(join(SSH_DIR, 'gpu-rental', `${alias}.conf`), 'utf8');
    assert.equal(await vscode.commands.executeCommand('gpuRental.connect', id), 'opened');
    assert.match(asked.join('\n'), /^Start .* to connect\?/m);
    assert.equal(seen.calls.length, 1);
    const after = await readFile(join(SSH_DIR, 'gpu-rental', `${alias}.conf`), 'utf8');
    assert.notEqual(after.match(/Port \d+/)![0], before.match(/Port \d+/)![0], 'the entry follows the port the restart moved');
    assert.equal((await sshTrue(USER_CONFIG, alias)).code, 0, 'ssh works again after stop and start');
  });

  it('waits for a booting instance, then connects without asking anything (what Open When Ready does after a rent)', async () => {
    const x = await extensionApi();
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    const booting = await rent();
    try {
      assert.notEqual((await show(booting))?.actual_status, 'running', 'still booting when connect begins');
      assert.equal(await vscode.commands.executeCommand('gpuRental.connect', booting), 'opened');
      assert.deepEqual(asked, [], 'nothing to confirm: it was meant to run');
      assert.equal((await show(booting))?.actual_status, 'running');
      assert.equal(seen.calls[0]?.uri, `vscode-remote://ssh-remote+${x.test.sshAlias(booting)}/root`);
      assert.equal((await sshTrue(USER_CONFIG, x.test.sshAlias(booting))).code, 0, 'created after the key was registered: it carries it');
    } finally {
      await api('DELETE', `/api/v0/instances/${booting}/`, sim.key);
    }
  });

  it('without Remote-SSH, offers the terminal, which runs ssh on the alias', async () => {
    const x = await extensionApi();
    const seen = observedHandoff([]);
    x.test.observeHandoff(seen.handoff);
    assert.equal(await vscode.commands.executeCommand('gpuRental.connect', id), 'terminalOffered');
    assert.equal(seen.calls.length, 0);
    const terminal = await vscode.commands.executeCommand<vscode.Terminal>('gpuRental.openSshTerminal', id);
    const options = terminal.creationOptions as vscode.TerminalOptions;
    assert.equal(options.shellPath, 'ssh');
    assert.deepEqual(options.shellArgs, ['-F', USER_CONFIG, alias]);
    terminal.dispose();
  });

  it('forwards a port of the instance to localhost', async () => {
    // The simulated instance is this machine, so a server here is a server "on the instance".
    const server: Server = createServer((_req, res) => res.end('hello from the instance'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const remotePort = (server.address() as { port: number }).port;
    try {
      const forward = await vscode.commands.executeCommand<{ url: string; localPort: number; stop(): void }>(
        'gpuRental.forwardPort',
        id,
        remotePort,
      );
      assert.ok(forward, 'forwarded');
      assert.notEqual(forward.localPort, remotePort, 'the port is taken here, so another local port is used');
      assert.equal(await (await fetch(forward.url)).text(), 'hello from the instance');
      forward.stop();
    } finally {
      server.close();
    }
  });

  it('refuses duplicated markers with a clear message and changes nothing', async () => {
    const x = await extensionApi();
    x.test.observeHandoff(observedHandoff().handoff);
    const good = await readFile(USER_CONFIG, 'utf8');
    const broken = `${good}\n# >>> gpu-rental: managed by the GPU Rental extension; do not edit between these lines >>>\n`;
    await writeFile(USER_CONFIG, broken);
    try {
      assert.equal(await vscode.commands.executeCommand('gpuRental.connect', id), 'cancelled');
      assert.equal(await readFile(USER_CONFIG, 'utf8'), broken, 'not touched');
      assert.match(await extensionLog(), /2 start and 1 end markers/);
    } finally {
      await writeFile(USER_CONFIG, good);
    }
  });

  it('shows the lines to add when the config is a link a dotfile tool manages, and never replaces it', async () => {
    const x = await extensionApi();
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    const dotfile = join(HOME, 'dotfiles-ssh-config');
    await writeFile(dotfile, USERS_OWN);
    await chmod(dotfile, 0o644);
    await rm(USER_CONFIG);
    await symlink(dotfile, USER_CONFIG);
    try {
      assert.equal(await vscode.commands.executeCommand('gpuRental.connect', id), 'failed');
      assert.equal(seen.calls.length, 0, 'Remote-SSH would not find the alias: nothing opened');
      assert.ok((await lstat(USER_CONFIG)).isSymbolicLink(), 'still the link');
      assert.equal(await readFile(dotfile, 'utf8'), USERS_OWN, 'the dotfile is untouched');
    } finally {
      await rm(USER_CONFIG);
      await writeFile(
        USER_CONFIG,
        `# >>> gpu-rental: managed by the GPU Rental extension; do not edit between these lines >>>\nInclude ${join(SSH_DIR, 'gpu-rental', '*.conf')}\n# <<< gpu-rental <<<\n${USERS_OWN}`,
      );
    }
  });

  it('removes the entry and the remotePlatform key when the instance is destroyed; the config outside the markers is as it was', async () => {
    await vscode.commands.executeCommand('gpuRental.destroyInstance', id);
    assert.equal(await show(id), null);
    await eventually(async () => !(await stat(join(SSH_DIR, 'gpu-rental', `${alias}.conf`)).catch(() => undefined)), 'the host file to go');
    await eventually(() => !(alias in platforms()), 'the remotePlatform entry to go');
    assert.equal(await afterMarkers(), USERS_OWN);
  });
});

describe('connect: an instance launched in a Jupyter mode (web console, Jupyter template)', function () {
  this.timeout(90_000);
  let id: number;
  let port: number;

  before(async () => {
    const x = await signIn();
    x.test.answerPrompts(always(true));
    await mkdir(SSH_DIR, { recursive: true, mode: 0o700 });
    const body = { rentable: { eq: true }, order: [['dph_total', 'asc']], limit: 1, type: 'on-demand' };
    const [offer] = ((await api('POST', '/api/v0/bundles/', sim.key, body)) as { offers: Offer[] }).offers;
    // What the CLI sends for --jupyter: Jupyter, and SSH through the proxy only (22 is not mapped).
    id = (
      (await api('PUT', `/api/v0/asks/${offer!.id}/`, sim.key, {
        client_id: 'me',
        image: 'ubuntu:22.04',
        disk: 8,
        runtype: 'jupyter_proxy ssh_proxy',
      })) as { new_contract: number }
    ).new_contract;
    const running = await eventually(
      async () => {
        const r = (await api('GET', `/api/v0/instances/${id}/?owner=me`, sim.key)) as {
          instances: { actual_status: string | null; ssh_port: number; image_runtype: string; ports?: { [k: string]: unknown } };
        };
        return r.instances.actual_status === 'running' ? r.instances : undefined;
      },
      'the Jupyter instance to run',
      20_000,
    );
    assert.equal(running.image_runtype, 'jupyter_proxy ssh_proxy');
    assert.equal(running.ports?.['22/tcp'], undefined, 'port 22 is not mapped: only the proxy reaches it');
    port = running.ssh_port;
  });
  after(() => api('DELETE', `/api/v0/instances/${id}/`, sim.key));

  it('writes the proxy port above ssh_port to the SSH config; the probe, real ssh and the SSH terminal reach the instance there', async () => {
    const x = await extensionApi();
    await vscode.workspace.getConfiguration('gpuRental').update('ssh.connectVia', undefined, vscode.ConfigurationTarget.Global);
    const seen = observedHandoff();
    x.test.observeHandoff(seen.handoff);
    const alias = x.test.sshAlias(id);
    assert.equal(await vscode.commands.executeCommand('gpuRental.connect', id), 'opened', 'the SSH banner answered at the port written');
    const entry = await readFile(join(SSH_DIR, 'gpu-rental', `${alias}.conf`), 'utf8');
    assert.match(entry, new RegExp(`Port ${port + 1}\\n`), "ssh_port + 1, as the service's proxy has it for a Jupyter launch");
    assert.match(entry, /proxy address/);
    assert.deepEqual(seen.calls, [{ uri: `vscode-remote://ssh-remote+${alias}/root`, options: { forceNewWindow: true } }]);
    assert.equal((await sshTrue(USER_CONFIG, alias)).code, 0, 'ssh -F <config> <alias> true works');
    const terminal = await vscode.commands.executeCommand<vscode.Terminal>('gpuRental.openSshTerminal', id);
    assert.deepEqual(
      (terminal.creationOptions as vscode.TerminalOptions).shellArgs,
      ['-F', USER_CONFIG, alias],
      'the terminal runs ssh on that same entry',
    );
    terminal.dispose();
  });
});
