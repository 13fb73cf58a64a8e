import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import { LoginPages } from '../../../src/core/browserWorkspace/loginPage';
import { closeBrowserWorkspace, openInBrowser, type OpenInBrowserDeps, type RunRemote } from '../../../src/core/browserWorkspace/open';
import { BrowserWorkspaces } from '../../../src/core/browserWorkspace/sessions';
import type { RemoteResult } from '../../../src/core/ssh/remote';
import type { PortForward } from '../../../src/core/ssh/forward';
import { MemoryLogger } from '../../support';
import { scriptedProgress } from '../../support/scriptedProgress';

const SHA = 'd'.repeat(64);
const PASSWORD = '00112233445566778899aabbccddeeff0011223344556677';
const inst = (over: Partial<Instance> = {}) =>
  ({
    id: 7,
    label: 'web',
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    actual_status: 'running',
    intended_status: 'running',
    ...over,
  }) as unknown as Instance;

function forwardOn(localPort: number): PortForward & { stopped: boolean; end(): void } {
  let end = () => {};
  const f = {
    instanceId: 7,
    remotePort: 41000,
    localPort,
    url: `http://localhost:${localPort}/`,
    stopped: false,
    ended: new Promise<void>((r) => (end = r)),
    stop: () => ((f.stopped = true), end()),
    end: () => end(),
  };
  return f;
}

/** What the instance answers, by which script ran (the first line's first name). */
type Answers = Partial<Record<'start' | 'install' | 'stop', RemoteResult | ((signal?: AbortSignal) => Promise<RemoteResult>)>>;

function fake(answers: Answers[], over: Partial<OpenInBrowserDeps> = {}) {
  const ran: string[] = [];
  let call = 0;
  const run: RunRemote = (_t, command, options) => {
    const script = command.startsWith('bash -c ') ? command : '';
    const kind = /VERSION=/.test(script.split('\\n')[0] ?? script) ? 'start' : /URL=/.test(script) ? 'install' : 'stop';
    ran.push(kind);
    const step = answers[Math.min(call++, answers.length - 1)]!;
    const a = step[kind];
    if (!a) return Promise.reject(new Error(`unexpected ${kind}`));
    if (kind === 'install') options.onStdout?.('progress 5000000\nprogress 12000000\n');
    if (typeof a === 'function') return a(options.signal);
    return Promise.resolve(a);
  };
  const forwards: PortForward[] = [];
  const started: number[] = [];
  const workspaces = new BrowserWorkspaces({ stop: (f) => f.stop() });
  const pages = new LoginPages();
  const fetched: string[] = [];
  const progress = scriptedProgress();
  const logger = new MemoryLogger();
  const deps: OpenInBrowserDeps = {
    show: () => Promise.resolve(inst()),
    sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: `gpu-rental-${i.id}`, args: [] }),
    progress,
    fetchText: (url) => (fetched.push(url), Promise.resolve(`${SHA}  code-server-4.139.1-linux-amd64.tar.gz\n`)),
    release: {},
    folder: '/root/my project',
    forwards: { find: (id, port) => forwards.find((f) => f.instanceId === id && f.remotePort === port), add: (f) => void forwards.push(f) },
    workspaces,
    loginPages: pages,
    logger,
    run,
    startForward: (_i, _t, port) => {
      started.push(port);
      return Promise.resolve(Object.assign(forwardOn(9100), { remotePort: port }));
    },
    ...over,
  };
  return { deps, ran, started, fetched, progress, logger, pages, workspaces, forwards };
}

const ok = (stdout: string): RemoteResult => ({ code: 0, stdout, stderr: '' });

describe('browser workspace: Open in Browser', () => {
  it('a server already running is reused: one ssh call, a forward, a one-time page; the password is in no log and no URL', async () => {
    const f = fake([{ start: ok(`running 41000\npassword ${PASSWORD}\n`) }]);
    const r = await openInBrowser(f.deps, inst());
    f.pages.dispose();
    assert.equal(r.kind, 'opened');
    if (r.kind !== 'opened') return;
    assert.equal(r.how, 'reused');
    assert.deepEqual(f.ran, ['start']);
    assert.deepEqual(f.started, [41000]);
    assert.equal(r.serverUrl, 'http://127.0.0.1:9100/');
    assert.match(r.loginUrl, /^http:\/\/127\.0\.0\.1:\d+\/open\/[0-9a-f]{32}$/);
    assert.ok(!r.loginUrl.includes(PASSWORD) && !r.serverUrl.includes(PASSWORD));
    assert.ok(!f.logger.lines.join('\n').includes(PASSWORD));
    assert.equal(f.workspaces.get(7)?.folder, '/root/my project');
    // One of this window's forwards: the idle guard counts an instance with one as in use
    // (IdleGuard.connected), so a browser workspace is never stopped as idle under a person.
    assert.equal(f.forwards.length, 1);
    assert.deepEqual(f.fetched, []);
  });

  it('none installed: reads the checksum here, the instance downloads and checks it, then starts; progress shows MB', async () => {
    const f = fake([
      { start: { code: 3, stdout: 'missing x86_64\n', stderr: '' } },
      { install: ok('installed /root/x\n') },
      { start: ok(`started 41000\npassword ${PASSWORD}\n`) },
    ]);
    const r = await openInBrowser(f.deps, inst());
    f.pages.dispose();
    assert.equal(r.kind === 'opened' && r.how, 'installed');
    assert.deepEqual(f.ran, ['start', 'install', 'start']);
    assert.deepEqual(f.fetched, ['https://api.github.com/repos/coder/code-server/releases/tags/v4.139.1']);
    const messages = f.progress.shown[0]!.updates.map((u) => u.message);
    assert.ok(messages.includes('the instance is downloading code-server 4.139.1: 12 MB'), messages.join(' | '));
  });

  it('a pinned sha256 is used as it is: no checksum is read', async () => {
    const f = fake(
      [
        { start: { code: 3, stdout: 'missing aarch64\n', stderr: '' } },
        { install: ok('') },
        { start: ok(`started 41000\npassword ${PASSWORD}\n`) },
      ],
      {
        release: { sha256: { arm64: SHA } },
      },
    );
    assert.equal((await openInBrowser(f.deps, inst())).kind, 'opened');
    f.pages.dispose();
    assert.deepEqual(f.fetched, []);
  });

  it('each install failure says what happened and what to do, and nothing is opened', async () => {
    const cases: Array<[number, RegExp]> = [
      [12, /does not have the expected sha256, so it was deleted, not installed/],
      [13, /no space left/],
      [10, /neither curl nor wget/],
      [11, /could not download .*downloadUrl to a mirror/],
      [16, /already being installed/],
    ];
    for (const [code, text] of cases) {
      const f = fake([
        { start: { code: 3, stdout: 'missing x86_64\n', stderr: '' } },
        { install: { code, stdout: '', stderr: 'the reason\n' } },
      ]);
      const r = await openInBrowser(f.deps, inst());
      assert.equal(r.kind, 'failed', String(code));
      if (r.kind === 'failed') assert.match(r.notice.text, text);
      assert.deepEqual(f.started, []);
      assert.equal(f.workspaces.list().length, 0);
    }
  });

  it('an architecture with no build, and a checksum nobody names, are refused before the instance downloads anything', async () => {
    const riscv = fake([{ start: { code: 3, stdout: 'missing riscv64\n', stderr: '' } }]);
    const r = await openInBrowser(riscv.deps, inst());
    assert.ok(r.kind === 'failed' && /riscv64.*x86_64 and arm64/.test(r.notice.text) && r.offerSettings);
    assert.deepEqual(riscv.ran, ['start']);
    const unnamed = fake([{ start: { code: 3, stdout: 'missing x86_64\n', stderr: '' } }], {
      fetchText: () => Promise.resolve('{"assets": []}'),
    });
    const u = await openInBrowser(unnamed.deps, inst());
    assert.ok(u.kind === 'failed' && /names no sha256/.test(u.notice.text));
    assert.deepEqual(unnamed.ran, ['start']);
    const offline = fake([{ start: { code: 3, stdout: 'missing x86_64\n', stderr: '' } }], {
      fetchText: () => Promise.reject(new Error('HTTP 503')),
    });
    const o = await openInBrowser(offline.deps, inst());
    assert.ok(o.kind === 'failed' && /could not read the sha256 .*HTTP 503.*pin it/.test(o.notice.text));
  });

  it('a stopped instance is refused with what to do, and ssh is not tried', async () => {
    const f = fake([{}], { show: () => Promise.resolve(inst({ actual_status: 'stopped', intended_status: 'stopped' })) });
    const r = await openInBrowser(f.deps, inst());
    assert.ok(r.kind === 'failed' && /is stopped; start it, then Open in Browser again/.test(r.notice.text));
    assert.deepEqual(f.ran, []);
  });

  it('Cancel during the download ends the remote install through the Progress port, and nothing is opened', async () => {
    const f = fake([
      { start: { code: 3, stdout: 'missing x86_64\n', stderr: '' } },
      {
        install: (signal) =>
          new Promise((_, reject) => {
            if (signal?.aborted) return reject(new Error('Cancelled.'));
            signal?.addEventListener('abort', () => reject(new Error('Cancelled.')), { once: true });
          }),
      },
    ]);
    const progress = scriptedProgress({ message: /is downloading/ });
    const r = await openInBrowser({ ...f.deps, progress }, inst());
    assert.deepEqual(r, { kind: 'cancelled' });
    assert.ok(progress.cancelled());
    assert.equal(f.workspaces.list().length, 0);
  });

  it('Close ends the forward and stops the server; a forward that ends by itself is told, Close is not', async () => {
    const f = fake([{ start: ok(`running 41000\npassword ${PASSWORD}\n`) }, { stop: ok('stopped\n') }]);
    const ended: string[] = [];
    f.workspaces.onEnded((w) => ended.push(w.name));
    assert.equal((await openInBrowser(f.deps, inst())).kind, 'opened');
    f.pages.dispose();
    const forward = f.workspaces.get(7)!.forward as ReturnType<typeof forwardOn>;
    const notice = await closeBrowserWorkspace(
      {
        workspaces: f.workspaces,
        sshTarget: () => Promise.resolve({ instanceId: 7, alias: 'a', args: [] }),
        run: f.deps.run,
        logger: f.logger,
      },
      7,
    );
    assert.match(notice.text, /is closed, and its VS Code server stopped/);
    assert.ok(forward.stopped);
    assert.deepEqual(f.ran.slice(-1), ['stop']);
    await new Promise((r) => setImmediate(r));
    assert.equal(ended.length, 0);

    const again = fake([{ start: ok(`running 41000\npassword ${PASSWORD}\n`) }]);
    again.workspaces.onEnded((w) => ended.push(w.name));
    await openInBrowser(again.deps, inst());
    again.pages.dispose();
    (again.workspaces.get(7)!.forward as ReturnType<typeof forwardOn>).end();
    await new Promise((r) => setImmediate(r));
    assert.equal(ended.length, 1);
    assert.equal(again.workspaces.list().length, 0);
  });
});
