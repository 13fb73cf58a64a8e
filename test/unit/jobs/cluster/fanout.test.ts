// Run on Cluster's copy from rank 0 with fakes: the daemon's configuration and the scripts each node
// runs (golden), what a node's look says, and the decisions: one upload to rank 0 and a pull on every
// other node; the direct upload for a node (or all) whenever a look, the daemon or a pull fails;
// nothing more after Cancel; the daemon stopped whatever happened. fanoutSim.test.ts runs it for real.
import assert from 'node:assert/strict';
import type { Instance } from '../../../../src/core/api/instances';
import { uploadToCluster, type FanoutDeps, type FanoutPorts, type RemoteRun } from '../../../../src/core/jobs/cluster/fanout';
import {
  daemonConfig,
  daemonStartScript,
  daemonStopScript,
  parseDaemonPort,
  parseNodeProbe,
  pullScript,
  servedPath,
  waitingPullInput,
  waitingPullScript,
} from '../../../../src/core/jobs/cluster/fanoutScripts';
import { runOnCluster, type RunClusterDeps } from '../../../../src/core/jobs/cluster/run';
import type { UploadRequest } from '../../../../src/core/jobs/run';
import { MemoryLogger } from '../../../support';
import { scriptedAsk } from '../../../support/scriptedAsk';

const node = (id: number) =>
  ({
    id,
    label: `n${id}`,
    num_gpus: 1,
    actual_status: 'running',
    intended_status: 'running',
    ssh_host: `ssh${id}.example.net`,
  }) as unknown as Instance;

/** What nodeProbeScript prints on a node with an overlay address, rsync, /root as home, as root. */
const probe = (address: string | undefined, o: { rsync?: boolean; home?: string } = {}) =>
  `${address ?? ''}\nrsync=${o.rsync === false ? 'no' : 'yes'}\nhome=${o.home ?? '/root'}\nid=0:0\n`;

const ok = (value: string): PromiseSettledResult<string> => ({ status: 'fulfilled', value });
const REQUEST: UploadRequest = { localDir: '/home/me/project', remoteDir: '/root/project', quiet: true };
const FILES = ['train.py', 'sub', 'sub/data.txt', '-odd name'];

interface Call {
  id: number;
  kind: 'start' | 'stop' | 'pull' | 'other';
  script: string;
  o: RemoteRun;
  /** What reached the script's stdin (a waiting pull's once it was sent). */
  sent?: string;
}

interface Fake {
  /** What a node's upload resolves (default /root/project). */
  upload?: (id: number) => string | undefined;
  /** The pull's exit code on a node (default 0); 'hang' waits for Cancel. */
  pull?: (id: number) => number | 'hang';
  /** The daemon start's stdout and code (default port=28730, 0); 'reject' as a lost ssh. */
  start?: { code: number; stdout: string } | 'reject';
  files?: () => Promise<readonly string[]>;
  /** Aborted when the first pull starts. */
  cancelAtPull?: boolean;
  /** The daemon's stop answers only when this resolves (default at once). */
  stopAnswers?: Promise<void>;
  noProgress?: boolean;
  /** Rank 0's upload resolves only when this does (default at once). */
  uploadWaits?: Promise<void>;
  /** Every pull answers only when this resolves (default at once). */
  pullWaits?: () => Promise<void>;
  earlyPullMs?: number;
  /** How long the upload runs alone before the daemon starts and the last pulls connect (default 0 here). */
  connectAfterMs?: number;
  /** A node whose waiting pull's ssh is lost at once. */
  waitingLost?: number;
}

function fake(f: Fake = {}) {
  const uploads: number[] = [];
  const calls: Call[] = [];
  const reports: Array<[string, number | undefined]> = [];
  const cancel = new AbortController();
  const logger = new MemoryLogger();
  /** A pull: a waiting one first waits for its stdin (an empty one ends it, exit 3), then as any pull. */
  const pulled = async (instance: Instance, call: Call, o: RemoteRun) => {
    const aborted = () =>
      new Promise<never>((_, reject) => {
        const stop = () => reject(new Error('Cancelled.'));
        if (o.signal?.aborted) stop();
        o.signal?.addEventListener('abort', stop);
      });
    if (o.input instanceof Promise) {
      if (instance.id === f.waitingLost) throw new Error('Connection closed');
      call.sent = await Promise.race([o.input, aborted()]);
      if (call.sent === '') return { code: 3, stdout: '', stderr: '' };
    } else call.sent = o.input;
    if (f.cancelAtPull) cancel.abort();
    const code = f.pull?.(instance.id) ?? 0;
    if (code === 'hang' || o.signal?.aborted) return aborted();
    const answer = { code, stdout: '', stderr: code ? '@ERROR: access denied' : '' };
    if (f.pullWaits) await Promise.race([f.pullWaits(), aborted()]);
    return answer;
  };
  const ports: FanoutPorts = {
    files: f.files ?? (() => Promise.resolve(FILES)),
    token: () => 'abc123def456',
    ...(f.earlyPullMs ? { earlyPullMs: f.earlyPullMs } : {}),
    connectAfterMs: f.connectAfterMs ?? 0,
    remote: (instance, script, o) => {
      const kind = script.includes('--daemon')
        ? 'start'
        : script.includes('kill -TERM')
          ? 'stop'
          : script.includes('--files-from')
            ? 'pull'
            : 'other';
      calls.push({ id: instance.id, kind, script, o });
      if (kind === 'start') {
        if (f.start === 'reject') return Promise.reject(new Error('ssh timed out'));
        return Promise.resolve({ ...(f.start ?? { code: 0, stdout: 'port=28730\n' }), stderr: f.start ? 'bind() failed' : '' });
      }
      if (kind === 'pull') return pulled(instance, calls.at(-1)!, o);
      if (kind === 'stop' && f.stopAnswers) return f.stopAnswers.then(() => ({ code: 0, stdout: '', stderr: '' }));
      return Promise.resolve({ code: 0, stdout: '', stderr: '' });
    },
    ...(f.noProgress
      ? {}
      : {
          progress: (title, work) => {
            reports.push([title, undefined]);
            return work({ report: (u) => void reports.push([u.message ?? '', u.increment]), signal: cancel.signal });
          },
        }),
  };
  const deps: FanoutDeps = {
    upload: async (id) => {
      uploads.push(id);
      await f.uploadWaits;
      return f.upload ? f.upload(id) : '/root/project';
    },
    fanout: ports,
    logger,
  };
  return { deps, uploads, calls, reports, logger, cancel };
}

const NODES = [node(41), node(42), node(43)];
const PROBES = [ok(probe('10.0.0.1')), ok(probe('10.0.0.2')), ok(probe('10.0.0.3'))];
const UPLOADED = { kind: 'uploaded', dir: '/root/project' } as const;

describe('jobs/cluster: the copy from rank 0, its scripts', () => {
  it('the daemon serves one read-only, unlisted module to the other nodes only, as the ssh user (golden)', () => {
    assert.equal(
      daemonConfig({ path: '/root/project', allow: ['10.0.0.2', '10.0.0.3'], uid: 0, gid: 0 }),
      [
        "# GPU Rental: Run on Cluster's copy from node 0 to the other nodes; removed when the copy ends.",
        'use chroot = no',
        'reverse lookup = no',
        '[gpu-rental]',
        'path = /root/project',
        'read only = yes',
        'list = no',
        'hosts allow = 10.0.0.2 10.0.0.3',
        'hosts deny = *',
        'munge symlinks = no',
        'timeout = 60',
        'uid = 0',
        'gid = 0',
        '',
      ].join('\n'),
    );
    assert.doesNotMatch(
      daemonConfig({ path: '/home/u/p', allow: ['10.0.0.2'], uid: 1000, gid: 1000 })!,
      /uid|gid/,
      'not root: no change of user',
    );
    assert.equal(daemonConfig({ path: '/p', allow: ['10.0.0.2 *'] }), undefined, 'only overlay addresses');
    assert.equal(daemonConfig({ path: '/p', allow: [] }), undefined);
  });

  it('each other node pulls the list on stdin into the same folder, under a hard timeout (golden)', () => {
    assert.equal(
      pullScript({ address: '10.0.0.1', port: 28730, remoteDir: '/root/my project' }),
      "mkdir -p -- '/root/my project' && timeout -k 10 900 rsync -a --from0 --files-from=- --timeout=60 -- rsync://10.0.0.1:28730/gpu-rental/ '/root/my project/'",
    );
    assert.equal(
      pullScript({ address: '10.0.0.1', port: 28731, remoteDir: "x'; rm -rf ~" }),
      "mkdir -p -- 'x'\\''; rm -rf ~' && timeout -k 10 900 rsync -a --from0 --files-from=- --timeout=60 -- rsync://10.0.0.1:28731/gpu-rental/ 'x'\\''; rm -rf ~/'",
    );
    assert.equal(pullScript({ address: '10.0.0.1;true', port: 28730, remoteDir: 'p' }), undefined);
    assert.equal(pullScript({ address: '10.0.0.1', port: 873, remoteDir: 'p' }), undefined, 'a port above 1000');
  });

  it('a waiting pull reads the port (digits only) from stdin before it pulls; nothing else runs (golden)', () => {
    assert.equal(
      waitingPullScript({ address: '10.0.0.1', remoteDir: '/root/my project' }),
      `IFS= read -r p || exit 3; case "$p" in ''|*[!0-9]*) exit 3;; esac; mkdir -p -- '/root/my project' && timeout -k 10 900 rsync -a --from0 --files-from=- --timeout=60 -- "rsync://10.0.0.1:$p/gpu-rental/" '/root/my project/'`,
    );
    assert.equal(waitingPullScript({ address: '10.0.0.1;true', remoteDir: 'p' }), undefined);
    assert.equal(waitingPullInput(28731, 'a\0b\0'), '28731\na\0b\0');
    assert.equal(waitingPullInput(873, 'a\0'), undefined, 'a port above 1000');
  });

  it('the daemon starts bound to the overlay address, tries each port, and ends by itself within 15 minutes', () => {
    const script = daemonStartScript({ folder: '/tmp/gpu-rental-fanout-abc123', address: '10.0.0.1', ports: [28730, 28731] })!;
    // The values on the first lines; the body (remote/daemon-start.sh) is static.
    assert.match(script, /^d=\/tmp\/gpu-rental-fanout-abc123 a=10\.0\.0\.1 l=0100000A h=900\nset -- 28730:703A 28731:703B\n/);
    assert.match(script, /^mkdir -m 700 -- "\$d" \|\| exit 3\n/m);
    assert.match(script, /^while \[ "\$#" -gt 0 \]; do\n {2}p=\$1\n/m);
    assert.match(
      script,
      /^ {2}timeout -k 10 "\$h" rsync --daemon --no-detach --config="\$d\/rsyncd\.conf" --address="\$a" --port="\$port" --log-file="\$d\/rsyncd\.log" <\/dev\/null >\/dev\/null 2>&1 &$/m,
    );
    assert.match(script, / \$l:\$\{p#\*:\} 00000000:0000 0A /, 'listening, as /proc/net/tcp writes 10.0.0.1 (l)');
    assert.equal(daemonStartScript({ folder: '/tmp/x', address: '0.0.0.0 ; true' }), undefined);
    assert.equal(daemonStartScript({ folder: '/tmp/x', address: '10.0.0.1', ports: [80] }), undefined, 'no port above 1000');
    assert.equal(parseDaemonPort('motd\nport=28731\n'), 28731);
    assert.equal(parseDaemonPort('port=22\n'), undefined, 'only a port it was given');
  });

  it('the stop kills only the process started with its configuration, then removes the folder', () => {
    const script = daemonStopScript('/tmp/gpu-rental-fanout-abc123');
    assert.match(script, /^ours\(\) \{ \[ -n "\$pid" \] && grep -qF -- "\$d\/rsyncd\.conf" "\/proc\/\$pid\/cmdline" 2>\/dev\/null; \}$/m);
    assert.match(script, /^if ours; then\n {2}kill -TERM "\$pid"/m);
    assert.match(script, /\nrm -rf -- "\$d"\n$/);
  });

  it("reads a node's look, and the folder the daemon serves", () => {
    assert.deepEqual(parseNodeProbe(probe('10.0.0.2')), { address: '10.0.0.2', rsync: true, home: '/root', uid: 0, gid: 0 });
    assert.deepEqual(parseNodeProbe('\nrsync=no\nhome=relative\nid=x\n'), { address: undefined, rsync: false });
    assert.equal(servedPath('/srv/p', '/root'), '/srv/p');
    assert.equal(servedPath('project', '/root'), '/root/project');
    assert.equal(servedPath('.', '/home/u'), '/home/u');
    assert.equal(servedPath('./-x', '/root/'), '/root/-x');
    assert.equal(servedPath('/srv/100%', '/root'), undefined, 'rsync would read %…% as a variable');
    assert.equal(servedPath('/srv/p\\', '/root'), undefined, 'a trailing backslash continues the line');
  });
});

describe('jobs/cluster: the copy from rank 0, decided', () => {
  it('uploads once, to rank 0; every other node pulls the NUL-separated list; the daemon is stopped', async () => {
    const t = fake();
    const results = await uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    assert.deepEqual(results, [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual(t.uploads, [41]);
    assert.deepEqual(
      t.calls.map((c) => [c.id, c.kind]),
      [
        [41, 'start'],
        [42, 'pull'],
        [43, 'pull'],
        [41, 'stop'],
      ],
    );
    const [start, pull] = t.calls;
    assert.match(start!.script, /^d=\/tmp\/gpu-rental-fanout-abc123def456 a=10\.0\.0\.1 /);
    assert.match(start!.o.input as string, /^path = \/root\/project\nread only = yes\nlist = no\nhosts allow = 10\.0\.0\.2 10\.0\.0\.3$/m);
    assert.equal(pull!.script, pullScript({ address: '10.0.0.1', port: 28730, remoteDir: '/root/project' }));
    assert.equal(pull!.o.input, 'train.py\0sub\0sub/data.txt\0-odd name\0');
    assert.ok(pull!.o.signal, 'Cancel reaches the pulls');
    assert.equal(t.reports[0]![0], 'copying project from node 0 to the other nodes of the cluster');
    assert.deepEqual(t.reports[1], ['copying to nodes 1, 2 from node 0', undefined]);
    assert.deepEqual(
      t.reports.filter(([, inc]) => inc !== undefined),
      [
        ['node 1 has the files', 50],
        ['node 2 has the files', 50],
      ],
    );
  });

  const allDirect = [
    ['rank 0 did not answer ssh', [{ status: 'rejected', reason: new Error('timeout') }, PROBES[1], PROBES[2]]],
    ['rank 0 has no eth0 address', [ok(probe(undefined)), PROBES[1], PROBES[2]]],
    ['rank 0 has no rsync', [ok(probe('10.0.0.1', { rsync: false })), PROBES[1], PROBES[2]]],
    ['no other node has rsync', [PROBES[0], ok(probe('10.0.0.2', { rsync: false })), ok(probe('10.0.0.3', { rsync: false }))]],
    ["the nodes share this machine's loopback (no eth0 anywhere)", NODES.map(() => ok(probe(undefined)))],
  ] as const;
  for (const [why, probes] of allDirect)
    it(`uploads to every node directly when ${why}, starting no daemon`, async () => {
      const t = fake();
      const results = await uploadToCluster(t.deps, NODES, REQUEST, probes as readonly PromiseSettledResult<string>[]);
      assert.deepEqual(results, [UPLOADED, UPLOADED, UPLOADED]);
      assert.deepEqual([...t.uploads].sort(), [41, 42, 43]);
      assert.equal(t.calls.length, 0);
      assert.ok(t.logger.lines.some((l) => /uploading to each node directly/.test(l)));
    });

  it('without its ports, or for one node, every node gets its own upload', async () => {
    const t = fake();
    assert.deepEqual(await uploadToCluster({ ...t.deps, fanout: undefined }, NODES, REQUEST, PROBES), [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual(await uploadToCluster(t.deps, NODES.slice(0, 1), REQUEST, PROBES.slice(0, 1)), [UPLOADED]);
    assert.deepEqual(t.uploads, [41, 42, 43, 41]);
    assert.equal(t.calls.length, 0);
  });

  it('a node without eth0 or rsync gets its own upload beside rank 0; the others still pull', async () => {
    const t = fake();
    const results = await uploadToCluster(t.deps, NODES, REQUEST, [PROBES[0]!, ok(probe('10.0.0.2', { rsync: false })), PROBES[2]!]);
    assert.deepEqual(results, [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual([...t.uploads].sort(), [41, 42]);
    assert.deepEqual(
      t.calls.map((c) => [c.id, c.kind]),
      [
        [41, 'start'],
        [43, 'pull'],
        [41, 'stop'],
      ],
    );
    assert.match(t.calls[0]!.o.input as string, /^hosts allow = 10\.0\.0\.3$/m, 'only the nodes that pull may connect');
  });

  it("does not wait for the daemon's stop: the nodes are ready while node 0's daemon is still stopping", async () => {
    let answer!: () => void;
    const t = fake({ stopAnswers: new Promise<void>((resolve) => (answer = resolve)) });
    const results = await uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    assert.deepEqual(results, [UPLOADED, UPLOADED, UPLOADED]);
    assert.equal(t.calls.at(-1)!.kind, 'stop', 'the stop was asked before the upload resolved');
    answer();
  });

  it('a pull that fails falls back to the direct upload for that node only; the daemon is stopped', async () => {
    const t = fake({ pull: (id) => (id === 43 ? 5 : 0) });
    const results = await uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    assert.deepEqual(results, [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual(t.uploads, [41, 43]);
    assert.equal(t.calls.at(-1)!.kind, 'stop');
    assert.ok(
      t.logger.lines.some((l) =>
        /copying to node 2 \(#43\) from node 0 failed \(exit 5: @ERROR: access denied\); uploading to it directly/.test(l),
      ),
    );
  });

  it('a pull and its direct upload both failing is a failed node', async () => {
    const t = fake({ pull: (id) => (id === 43 ? 10 : 0), upload: (id) => (id === 43 ? undefined : '/root/project') });
    assert.deepEqual(await uploadToCluster(t.deps, NODES, REQUEST, PROBES), [UPLOADED, UPLOADED, { kind: 'failed' }]);
  });

  for (const [what, start] of [
    ['no port works', { code: 4, stdout: '' }],
    ['its ssh is lost', 'reject'],
  ] as const)
    it(`a daemon that does not start (${what}) sends every other node its own upload, and is stopped all the same`, async () => {
      const t = fake({ start });
      assert.deepEqual(await uploadToCluster(t.deps, NODES, REQUEST, PROBES), [UPLOADED, UPLOADED, UPLOADED]);
      assert.deepEqual(t.uploads, [41, 42, 43]);
      assert.deepEqual(
        t.calls.map((c) => c.kind),
        ['start', 'stop'],
      );
    });

  it('a list that cannot be made sends every other node its own upload, and stops the daemon', async () => {
    const t = fake({ files: () => Promise.reject(new Error('EACCES')) });
    assert.deepEqual(await uploadToCluster(t.deps, NODES, REQUEST, PROBES), [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual(t.uploads, [41, 42, 43]);
    assert.deepEqual(
      t.calls.map((c) => c.kind),
      ['start', 'stop'],
    );
  });

  it('Cancel during the pulls fails the nodes not yet copied, uploads nothing more, and stops the daemon', async () => {
    const t = fake({ cancelAtPull: true, pull: (id) => (id === 43 ? 'hang' : 0) });
    const results = await uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    assert.deepEqual(results, [UPLOADED, { kind: 'failed' }, { kind: 'failed' }]);
    assert.deepEqual(t.uploads, [41]);
    assert.equal(t.calls.at(-1)!.kind, 'stop');
  });

  it("rank 0's upload failing at once tries no other node and starts no daemon", async () => {
    const t = fake({ upload: (id) => (id === 41 ? undefined : '/root/project'), connectAfterMs: 50 });
    const results = await uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    assert.deepEqual(results, [{ kind: 'failed' }, { kind: 'skipped' }, { kind: 'skipped' }]);
    assert.deepEqual(t.uploads, [41]);
    assert.equal(t.calls.length, 0, 'no connection to any node');
  });

  it("the copy's connections wait until rank 0's upload is under way, then connect the last pulls before it ends", async () => {
    let finish!: () => void;
    const uploadWaits = new Promise<void>((resolve) => (finish = resolve));
    const t = fake({ uploadWaits, connectAfterMs: 60 });
    const running = uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(t.calls.length, 0, 'nothing beside the upload at first');
    while (t.calls.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const waitingScript = waitingPullScript({ address: '10.0.0.1', remoteDir: '/root/project' });
    assert.deepEqual(t.calls.map((c) => [c.id, c.kind === 'start' ? 'start' : c.script === waitingScript ? 'waiting' : c.kind]).sort(), [
      [41, 'start'],
      [42, 'waiting'],
      [43, 'waiting'],
    ]);
    finish();
    assert.deepEqual(await running, [UPLOADED, UPLOADED, UPLOADED]);
    assert.equal(t.calls.filter((c) => c.kind === 'pull').length, 2, 'the waiting pulls did the copy: no round, no fresh pull');
  });

  it('an upload shorter than the wait is copied right after it, by fresh pulls', async () => {
    const t = fake({ connectAfterMs: 60_000 });
    const results = await uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    assert.deepEqual(results, [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual(
      t.calls.map((c) => [c.kind, c.script === pullScript({ address: '10.0.0.1', port: 28730, remoteDir: '/root/project' })]),
      [
        ['start', false],
        ['pull', true],
        ['pull', true],
        ['stop', false],
      ],
    );
  });

  it('an upload that went to another folder than the daemon serves sends every other node its own upload', async () => {
    const t = fake({ upload: () => 'elsewhere' });
    assert.deepEqual(
      await uploadToCluster(t.deps, NODES, REQUEST, PROBES),
      NODES.map(() => ({ kind: 'uploaded', dir: 'elsewhere' })),
    );
    assert.deepEqual(t.uploads, [41, 42, 43]);
    assert.deepEqual(
      t.calls.map((c) => c.kind),
      ['start', 'stop'],
    );
  });

  it('after an upload longer than 5 minutes, a fresh daemon serves the copy and both are stopped', async () => {
    let clock = 0;
    const t = fake({ upload: () => ((clock += 301_000), '/root/project') });
    t.deps.fanout!.now = () => clock;
    assert.deepEqual(await uploadToCluster(t.deps, NODES, REQUEST, PROBES), [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual(
      t.calls.map((c) => c.kind),
      ['start', 'stop', 'start', 'pull', 'pull', 'stop'],
    );
  });

  it('while the upload runs the other nodes pull what has arrived, and the last pull is connected before it ends', async () => {
    let finish!: () => void;
    const uploadWaits = new Promise<void>((resolve) => (finish = resolve));
    let busy = 0;
    let most = 0;
    const t = fake({
      uploadWaits,
      pullWaits: async () => {
        most = Math.max(most, ++busy);
        await new Promise((resolve) => setTimeout(resolve, 5));
        busy--;
      },
      earlyPullMs: 1,
    });
    const running = uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    while (t.calls.filter((c) => c.kind === 'pull').length < 6) await new Promise((resolve) => setTimeout(resolve, 1));
    const before = t.calls.length;
    finish();
    assert.deepEqual(await running, [UPLOADED, UPLOADED, UPLOADED]);
    const kinds = t.calls.map((c) => c.kind);
    assert.equal(kinds[0], 'start');
    assert.equal(kinds.at(-1), 'stop', 'the daemon is stopped after every pull');
    const LIST = 'train.py\0sub\0sub/data.txt\0-odd name\0';
    const waiting = t.calls.filter((c) => c.script === waitingPullScript({ address: '10.0.0.1', remoteDir: '/root/project' }));
    assert.deepEqual(
      waiting.map((c) => [c.id, c.sent]),
      [
        [42, `28730\n${LIST}`],
        [43, `28730\n${LIST}`],
      ],
      'one waiting pull per node, sent the port and the list once the upload is done',
    );
    const rounds = t.calls.filter((c) => c.kind === 'pull' && !waiting.includes(c));
    assert.ok(rounds.length >= 4 && rounds.length % 2 === 0, `rounds on both nodes during the upload: ${rounds.length} pulls`);
    for (const c of rounds) {
      assert.equal(c.script, pullScript({ address: '10.0.0.1', port: 28730, remoteDir: '/root/project' }));
      assert.equal(c.sent, LIST);
    }
    assert.ok(
      t.calls.slice(before).every((c) => c.kind !== 'pull' || c.sent === LIST),
      'after the upload no new connection makes the last pull',
    );
    assert.ok(most <= 2, `never two pulls on one node at once (at most ${most} pulls ran together)`);
    assert.ok(t.logger.lines.some((l) => l.includes('copy what has reached node 0 while the upload runs')));
  });

  it('a waiting pull whose ssh ended before the upload did is replaced by a fresh pull', async () => {
    let finish!: () => void;
    const uploadWaits = new Promise<void>((resolve) => (finish = resolve));
    // Node 42's waiting ssh is lost at once (a timeout, a dropped link).
    const t = fake({ uploadWaits, earlyPullMs: 1, waitingLost: 42 });
    const running = uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    while (t.calls.filter((c) => c.kind === 'pull').length < 3) await new Promise((resolve) => setTimeout(resolve, 1));
    finish();
    assert.deepEqual(await running, [UPLOADED, UPLOADED, UPLOADED]);
    assert.deepEqual(t.uploads, [41], 'no direct upload: node 42 pulled anew');
    const last42 = t.calls.filter((c) => c.id === 42 && c.kind === 'pull').at(-1)!;
    assert.equal(last42.script, pullScript({ address: '10.0.0.1', port: 28730, remoteDir: '/root/project' }));
  });

  it("rank 0's upload failing stops the pulls under way and the waiting ones, pulls nothing after it, and stops the daemon", async () => {
    let finish!: () => void;
    const uploadWaits = new Promise<void>((resolve) => (finish = resolve));
    const t = fake({ uploadWaits, upload: () => undefined, pullWaits: () => new Promise(() => {}), earlyPullMs: 1 });
    const running = uploadToCluster(t.deps, NODES, REQUEST, PROBES);
    while (t.calls.filter((c) => c.kind === 'pull').length < 4) await new Promise((resolve) => setTimeout(resolve, 1));
    finish();
    assert.deepEqual(await running, [{ kind: 'failed' }, { kind: 'skipped' }, { kind: 'skipped' }]);
    const pulls = t.calls.filter((c) => c.kind === 'pull');
    assert.equal(pulls.length, 4, 'the two waiting pulls and the round under way, nothing more');
    assert.ok(pulls.every((c) => c.o.signal?.aborted));
    assert.equal(t.calls.at(-1)!.kind, 'stop');
  });

  it('runs without a progress port (nothing shown, nothing to cancel)', async () => {
    const t = fake({ noProgress: true });
    assert.deepEqual(await uploadToCluster(t.deps, NODES, REQUEST, PROBES), [UPLOADED, UPLOADED, UPLOADED]);
    const pulls = t.calls.filter((c) => c.kind === 'pull');
    assert.equal(pulls.length, 2);
    assert.ok(
      pulls.every((c) => c.o.signal?.aborted === false),
      'the pulls run with a Cancel nobody presses',
    );
    assert.deepEqual(t.reports, [], 'nothing shown');
  });
});

describe('jobs/cluster: Run on Cluster with the copy from rank 0', () => {
  function runDeps(t: ReturnType<typeof fake>, look: (id: number) => string): RunClusterDeps {
    return {
      ask: scriptedAsk([]),
      memory: { uploadFirst: () => true, setUploadFirst: () => Promise.resolve() },
      upload: t.deps.upload,
      uploadDestination: () => '/root/project',
      remoteFolder: '',
      shell: (instance) => Promise.resolve(look(instance.id)),
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(true),
      newJobId: () => '20261124-001611-k3f9q2',
      logger: t.logger,
      fanout: t.deps.fanout!,
    };
  }
  const given = { preset: 'custom', command: 'true', uploadFirst: true, stopAtEnd: false } as const;

  it('reads every address before the upload, starts the job with them, and uploads only to rank 0', async () => {
    const t = fake();
    const outcome = await runOnCluster(
      runDeps(t, (id) => probe(`10.0.0.${id - 40}`)),
      { label: 'demo', nodes: NODES },
      {},
      { ...given, localDir: '/home/me/project' },
    );
    assert.equal(outcome?.kind, 'started');
    assert.deepEqual(t.uploads, [41]);
  });

  it('refuses a node without an overlay address before anything is uploaded', async () => {
    const t = fake();
    const outcome = await runOnCluster(
      runDeps(t, (id) => probe(id === 43 ? undefined : `10.0.0.${id - 40}`)),
      { label: 'demo', nodes: NODES },
      {},
      { ...given, localDir: '/home/me/project' },
    );
    assert.equal(outcome?.kind, 'failed');
    assert.match(outcome.notice.text, /has no overlay address on eth0/);
    assert.deepEqual(t.uploads, []);
  });

  it('names the node whose copy and upload both failed, and starts nothing', async () => {
    const t = fake({ pull: (id) => (id === 42 ? 10 : 0), upload: (id) => (id === 42 ? undefined : '/root/project') });
    const outcome = await runOnCluster(
      runDeps(t, (id) => probe(`10.0.0.${id - 40}`)),
      { label: 'demo', nodes: NODES },
      {},
      { ...given, localDir: '/home/me/project' },
    );
    assert.equal(outcome?.kind, 'failed');
    assert.match(
      outcome.notice.text,
      /^GPU Rental: the upload to rank 1 \("n42".*\) did not complete, so the job started on no node of demo\./,
    );
  });
});
