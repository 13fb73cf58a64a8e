// Open in Browser against the simulator: a real instance container downloads code-server from the
// simulator's release mirror with its own curl, checks its sha256, starts it on its loopback, and
// this machine forwards it and signs in. Also what must hold for the password (never on a command
// line or in a log, the server refuses a request without it), where things listen, and that a
// tampered or broken download leaves nothing half-installed.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { CODE_SERVER_VERSION } from '../../../src/core/browserWorkspace/release';
import { LoginPages } from '../../../src/core/browserWorkspace/loginPage';
import {
  closeBrowserWorkspace,
  openInBrowser,
  type OpenInBrowserDeps,
  type OpenInBrowserResult,
} from '../../../src/core/browserWorkspace/open';
import { BrowserWorkspaces } from '../../../src/core/browserWorkspace/sessions';
import { STATE_DIR } from '../../../src/core/browserWorkspace/scripts';
import { PortForwards } from '../../../src/core/ssh/forward';
import type { SshTarget } from '../../../src/core/ssh/remote';
import { CODE_SERVER_MIRROR, CODE_SERVER_VERSION as TESTS_CODE_SERVER } from '../../../scripts/paths';
import { containerPath, containerSuite, MemoryLogger, type ContainerInstance } from '../../support';
import { mirrorDownloadUrl } from '../../support/simulator';
import { scriptedProgress } from '../../support/scriptedProgress';

const installed = existsSync(CODE_SERVER_MIRROR.installedMarker);

/** Listening TCP sockets of this machine on `port`, as `address:port` (instances share its network here). */
function listeners(port: number): string[] {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local?.endsWith(`:${hex}`)) continue;
      const addr = local.split(':')[0]!;
      found.push(
        addr.length === 8
          ? `${[3, 2, 1, 0].map((i) => parseInt(addr.slice(i * 2, i * 2 + 2), 16)).join('.')}:${port}`
          : `[v6 ${addr}]:${port}`,
      );
    }
  }
  return found;
}

/** Every process of this machine whose command line holds `secret`. */
function commandLinesWith(secret: string): string[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        return cmd.includes(secret) ? [`${d}: ${cmd.replace(/\0/g, ' ')}`] : [];
      } catch {
        return [];
      }
    });
}

(installed ? describe : describe.skip)('browser workspace: Open in Browser on a simulated instance', function () {
  this.timeout(180_000);
  const suite = containerSuite('browser-workspace');
  const forwards = new PortForwards();
  const pages = new LoginPages(5_000);
  const logger = new MemoryLogger();
  let workspaces: BrowserWorkspaces;
  let rented: ContainerInstance;

  const deps = (target: SshTarget, over: Partial<OpenInBrowserDeps> = {}): OpenInBrowserDeps => ({
    show: (id) => suite.client.instances.show(id),
    sshTarget: () => Promise.resolve(target),
    progress: scriptedProgress(),
    fetchText: async (url, signal) => {
      const res = await fetch(url, { signal });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return res.text();
    },
    release: { downloadUrl: mirrorDownloadUrl(suite.sim.url) },
    folder: '/workspace',
    forwards,
    workspaces,
    loginPages: pages,
    logger,
    ...over,
  });
  const stateOnInstance = (id: number) => containerPath(suite.sim, id, `/root/${STATE_DIR}`);
  const leftovers = (id: number) => (existsSync(stateOnInstance(id)) ? readdirSync(stateOnInstance(id)).filter((n) => n !== 'run') : []);

  before(async () => {
    workspaces = new BrowserWorkspaces(forwards);
    rented = await suite.rent({ disk: 8 });
  });
  after(() => {
    forwards.dispose();
    pages.dispose();
  });

  it('pins the code-server the tests install', () => {
    assert.equal(CODE_SERVER_VERSION, TESTS_CODE_SERVER);
  });

  it('a tampered download is refused, and nothing is left that a later run would take for a server', async () => {
    suite.sim.control.setMirror({ corrupt: true });
    const r = await openInBrowser(deps(rented.target), await suite.client.instances.show(rented.id));
    suite.sim.control.setMirror({});
    assert.equal(r.kind, 'failed');
    if (r.kind === 'failed') assert.match(r.notice.text, /does not have the expected sha256, so it was deleted, not installed/);
    assert.deepEqual(leftovers(rented.id), []);
    assert.equal(forwards.list().length, 0);
  });

  it('a download that breaks half-way says so, and leaves nothing either', async () => {
    suite.sim.control.setMirror({ failAfterBytes: 5_000_000 });
    const r = await openInBrowser(deps(rented.target), await suite.client.instances.show(rented.id));
    suite.sim.control.setMirror({});
    assert.ok(r.kind === 'failed' && /could not download/.test(r.notice.text), JSON.stringify(r));
    assert.deepEqual(leftovers(rented.id), []);
  });

  let opened: Extract<OpenInBrowserResult, { kind: 'opened' }>;
  let password = '';

  it('installs from the mirror, starts on the instance’s loopback, forwards to 127.0.0.1 only; the sign-in page gets in', async () => {
    const r = await openInBrowser(deps(rented.target), await suite.client.instances.show(rented.id));
    assert.equal(r.kind, 'opened', JSON.stringify(r));
    if (r.kind !== 'opened') return;
    opened = r;
    assert.equal(r.how, 'installed');
    assert.deepEqual(leftovers(rented.id), [`code-server-${CODE_SERVER_VERSION}-linux-amd64`]);
    assert.deepEqual(listeners(r.remotePort), [`127.0.0.1:${r.remotePort}`], 'the server listens on loopback only');
    assert.deepEqual(listeners(r.localPort), [`127.0.0.1:${r.localPort}`], 'the forward binds 127.0.0.1 only');
    const config = `${stateOnInstance(rented.id)}/run/config.yaml`;
    assert.equal(statSync(config).mode & 0o777, 0o600);
    password = /^password: (\S+)$/m.exec(readFileSync(config, 'utf8'))![1]!;

    // Without the password: refused, whatever the path.
    for (const path of ['', '?folder=/workspace', 'vscode-remote-resource?path=/etc/hostname']) {
      const res = await fetch(`${r.serverUrl}${path}`, { redirect: 'manual' });
      const toLogin = res.status === 302 && /login/.test(res.headers.get('location') ?? '');
      assert.ok(toLogin || res.status === 401 || res.status === 403, `${path}: ${res.status}`);
      assert.ok(!(await res.text()).includes(`c-${rented.id}`), 'nothing of the instance is served');
    }
    const wrong = await fetch(`${r.serverUrl}login`, {
      method: 'POST',
      body: new URLSearchParams({ password: 'x'.repeat(48) }),
      redirect: 'manual',
    });
    assert.ok(!/code-server-session/.test(wrong.headers.get('set-cookie') ?? ''), 'a wrong password gets no session');

    // The one-time page posts the password to the server's login, which opens the folder.
    const html = await (await fetch(r.loginUrl)).text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!.replace(/&#38;/g, '&');
    assert.ok(html.includes(password));
    const login = await fetch(action, { method: 'POST', body: new URLSearchParams({ password }), redirect: 'manual' });
    assert.equal(login.status, 302);
    assert.equal(decodeURIComponent(login.headers.get('location') ?? ''), './?folder=/workspace');
    const cookie = /(code-server-session-gpu-rental-\d+=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    assert.ok(cookie, `a session cookie of this instance's own name: ${login.headers.get('set-cookie')}`);
    const page = await fetch(`${r.serverUrl}?folder=/workspace`, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.equal((await fetch(r.loginUrl)).status, 404, 'the page is gone once used');
  });

  it('the password is on no command line on either side, and in no log', () => {
    assert.ok(password.length >= 32);
    assert.deepEqual(commandLinesWith(password), []);
    assert.ok(!readFileSync(`${stateOnInstance(rented.id)}/run/log`, 'utf8').includes(password));
    assert.ok(!logger.lines.join('\n').includes(password));
  });

  it('a second Open in Browser reuses the running server and its forward', async () => {
    const again = await openInBrowser(deps(rented.target), await suite.client.instances.show(rented.id));
    assert.ok(again.kind === 'opened' && again.how === 'reused');
    if (again.kind !== 'opened') return;
    assert.equal(again.remotePort, opened.remotePort);
    assert.equal(again.localPort, opened.localPort);
    assert.equal(forwards.list().length, 1);
  });

  it('Close ends the forward and the server: nothing listens on either side, and the password is gone', async () => {
    const notice = await closeBrowserWorkspace({ workspaces, sshTarget: () => Promise.resolve(rented.target), logger }, rented.id);
    assert.match(notice.text, /is closed, and its VS Code server stopped/);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(listeners(opened.remotePort), []);
    assert.deepEqual(listeners(opened.localPort), []);
    assert.ok(!existsSync(`${stateOnInstance(rented.id)}/run/config.yaml`));
    assert.equal(workspaces.list().length, 0);
  });

  it('a full disk says so, and leaves nothing', async () => {
    const small = await suite.rent({ disk: 0.1 });
    try {
      const r = await openInBrowser(deps(small.target), await suite.client.instances.show(small.id));
      assert.ok(r.kind === 'failed' && /no space left/.test(r.notice.text), JSON.stringify(r));
      assert.deepEqual(leftovers(small.id), []);
    } finally {
      await suite.client.instances.destroy(small.id);
    }
  });
});
