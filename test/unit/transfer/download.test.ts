import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Instance } from '../../../src/core/api/instances';
import type { SshTarget } from '../../../src/core/ssh/remote';
import {
  downloadBeforeDestroy,
  downloadFlow,
  measureBeforeDestroy,
  type BrowsePick,
  type DownloadFlowDeps,
  type MeasureDeps,
} from '../../../src/core/transfer/download';
import { TransferError } from '../../../src/core/transfer/errors';
import type { TransferNotice } from '../../../src/core/transfer/notices';
import type { RemoteListing } from '../../../src/core/transfer/remotePath';
import type { DownloadResult } from '../../../src/core/transfer/runner';
import { silentProgress } from '../../../src/core/progress';
import { MemoryLogger } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';

const box = { id: 7, label: 'train', actual_status: 'running', intended_status: 'running', num_gpus: 1, gpu_name: 'RTX 4090' } as Instance;
const target: SshTarget = { instanceId: 7, alias: 'gpu-rental-7', args: [] };

type DownloadCall = { remotePath: string; localDir: string; replace?: boolean };

interface Script {
  answers?: Answer[];
  /** The remote folders that exist, with their entries (a name ending in / is a folder). */
  folders?: Record<string, string[]>;
  /** What the browser's pick answers for each listing shown, in turn. */
  picks?: Array<BrowsePick | undefined>;
  results?: Array<DownloadResult | Error>;
  /** What the local folder dialog answers (null: dismissed). */
  into?: string | null;
}

function harness(script: Script) {
  const ask = scriptedAsk(script.answers ?? []);
  const calls: DownloadCall[] = [];
  const shown: string[] = [];
  const notified: Array<TransferNotice<never>> = [];
  const picks = [...(script.picks ?? [])];
  const results = [...(script.results ?? [])];
  const d: DownloadFlowDeps = {
    ask,
    logger: new MemoryLogger(),
    sshTarget: () => Promise.resolve(target),
    progress: silentProgress(),
    pickDownloadFolder: () => Promise.resolve(script.into === undefined ? '/home/me/got' : (script.into ?? undefined)),
    pickRemote: (view) => {
      shown.push(view.dir);
      return Promise.resolve(picks.shift());
    },
    notify: (notice) => notified.push(notice),
    transferFolder: '/root',
    listRemote: (_target, path) => {
      const entries = script.folders?.[path];
      if (!entries) return Promise.reject(new TransferError('remoteMissing', `${path} does not exist on the instance.`));
      const listing: RemoteListing = {
        path,
        entries: entries.map((e) => ({ name: e.replace(/\/$/, ''), folder: e.endsWith('/') })),
        refused: 0,
      };
      return Promise.resolve(listing);
    },
    download: (_target, spec) => {
      calls.push(spec);
      const next = results.shift();
      if (!next) throw new Error('downloaded more often than the test expected');
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
  return { d, ask, calls, shown, notified };
}

const got = (localPath: string, notice?: string): DownloadResult => ({
  method: notice ? 'tar' : 'rsync',
  localPath,
  filesSent: 2,
  bytesSent: 2048,
  ...(notice ? { notice } : {}),
});

describe('transfer: the Download from Instance flow', () => {
  it('browses from the transfer folder into a subfolder, picks a file, and downloads it into the chosen folder', async () => {
    const h = harness({
      folders: { '/root': ['runs/', 'notes.txt'], '/root/runs': ['model.pt'] },
      picks: [
        { action: 'open', path: '/root/runs' },
        { action: 'file', path: '/root/runs/model.pt' },
      ],
      results: [got('/home/me/got/model.pt')],
    });
    const outcome = await downloadFlow(h.d, box, {});
    assert.deepEqual(h.shown, ['/root', '/root/runs']);
    assert.deepEqual(h.calls, [{ remotePath: '/root/runs/model.pt', localDir: '/home/me/got', replace: false }]);
    assert.equal(outcome?.kind, 'downloaded');
    if (outcome?.kind !== 'downloaded') return;
    assert.equal(outcome.localPath, '/home/me/got/model.pt');
    assert.match(outcome.notice.text, /^GPU Rental: downloaded \/root\/runs\/model\.pt from "train" .* to \/home\/me\/got\/model\.pt\.$/);
    assert.deepEqual(outcome.notice.actions, ['reveal']);
  });

  it('a start folder that does not exist is said, and the home folder is shown instead', async () => {
    const h = harness({ folders: { '.': ['data/'] }, picks: [{ action: 'here', path: '.' }], results: [got('/home/me/got/x')] });
    await downloadFlow(h.d, box, {});
    assert.deepEqual(h.shown, ['.']);
    assert.equal(h.notified.length, 1);
    assert.equal(h.notified[0]!.severity, 'warning');
    assert.match(h.notified[0]!.text, /^GPU Rental: \/root does not exist on "train" .*; showing its home folder\.$/);
  });

  it('"Type a path…" asks for one, starting from the folder shown', async () => {
    const h = harness({
      answers: [{ input: '/data/set' }],
      folders: { '/root': [] },
      picks: [{ action: 'type' }],
      results: [got('/home/me/got/set')],
    });
    await downloadFlow(h.d, box, {});
    assert.equal(h.ask.asked[0]!.text, 'A file or folder on the instance');
    assert.equal(h.calls[0]!.remotePath, '/data/set');
  });

  it('a dismissed browser or folder dialog downloads nothing', async () => {
    const browsed = harness({ folders: { '/root': [] }, picks: [undefined] });
    assert.equal(await downloadFlow(browsed.d, box, {}), undefined);
    const noFolder = harness({ into: null });
    assert.equal(await downloadFlow(noFolder.d, box, { remotePath: '/root/x' }), undefined);
    assert.equal(browsed.calls.length + noFolder.calls.length, 0);
  });

  it('an existing copy is replaced only when the user says Replace', async () => {
    const exists = () => new TransferError('targetExists', 'exists already');
    const yes = harness({ answers: [{ confirm: true }], results: [exists(), got('/home/me/got/x')] });
    const outcome = await downloadFlow(yes.d, box, { remotePath: '/root/x' });
    assert.equal(yes.ask.asked[0]!.text, `${join('/home/me/got', 'x')} exists already.`);
    assert.deepEqual(yes.ask.asked[0]!.options, ['Replace']);
    assert.deepEqual(
      yes.calls.map((c) => c.replace),
      [false, true],
    );
    assert.equal(outcome?.kind, 'downloaded');

    const no = harness({ answers: [{ confirm: false }], results: [exists()] });
    assert.equal(await downloadFlow(no.d, box, { remotePath: '/root/x' }), undefined);
    assert.equal(no.calls.length, 1, 'kept: not downloaded again');
  });

  it('a remote path that does not exist is an error without Retry', async () => {
    const message = '/root/no-such-folder does not exist on the instance. Browse to the folder or check the path, then try again.';
    const h = harness({ results: [new TransferError('remoteMissing', message)] });
    const outcome = await downloadFlow(h.d, box, { remotePath: '/root/no-such-folder', localDir: '/tmp/in' });
    assert.deepEqual(outcome?.kind === 'failed' && outcome.notice, { severity: 'error', text: `GPU Rental: ${message}`, actions: [] });
  });

  it('Retry after a drop resumes the same download into the same folder', async () => {
    const h = harness({ results: [new TransferError('connection', 'dropped'), got('/tmp/in/x')] });
    const outcome = await downloadFlow(h.d, box, { remotePath: '/root/x', localDir: '/tmp/in' });
    assert.equal(outcome?.kind, 'failed');
    const again = outcome?.kind === 'failed' ? await outcome.retry() : undefined;
    assert.equal(again?.kind, 'downloaded');
    assert.deepEqual(h.calls[1], h.calls[0]);
  });

  it('before a destroy, asks where to download the folder and downloads it', async () => {
    const h = harness({ results: [got('/home/me/got/root')] });
    const outcome = await downloadBeforeDestroy(h.d, box, '/root');
    assert.deepEqual(h.calls, [{ remotePath: '/root', localDir: '/home/me/got', replace: false }]);
    assert.equal(outcome?.kind, 'downloaded');
  });
});

describe('transfer: what Destroy learns of the transfer folder first', () => {
  const deps = (over: Partial<Omit<MeasureDeps, 'logger'>> = {}): MeasureDeps & { logger: MemoryLogger } => ({
    logger: new MemoryLogger(),
    sshTarget: () => Promise.resolve(target),
    hasLocalKey: () => Promise.resolve(true),
    transferFolder: '/root/',
    remoteSize: () => Promise.resolve(123_456),
    ...over,
  });

  it('says the folder and its bytes', async () => {
    assert.deepEqual(await measureBeforeDestroy(deps(), box), { folder: '/root', bytes: 123_456 });
  });

  it('a missing folder has no bytes', async () => {
    assert.deepEqual(await measureBeforeDestroy(deps({ remoteSize: () => Promise.resolve(undefined) }), box), {
      folder: '/root',
      bytes: undefined,
    });
  });

  it('without a local SSH key it asks nothing over ssh (making a key is no question for a destroy)', async () => {
    let reached = false;
    const d = deps({
      hasLocalKey: () => Promise.resolve(false),
      sshTarget: () => {
        reached = true;
        return Promise.resolve(target);
      },
    });
    assert.equal(await measureBeforeDestroy(d, box), undefined);
    assert.equal(reached, false);
  });

  it('a silent instance is given up on, so the destroy is not held up', async () => {
    let signal: AbortSignal | undefined;
    const d = deps({
      remoteSize: (_t, _p, _ms, options) => {
        signal = options?.signal;
        return new Promise<number>(() => undefined);
      },
    });
    assert.equal(await measureBeforeDestroy(d, box, 10), undefined);
    assert.equal(signal?.aborted, true, 'the ssh call is aborted');
  });

  it('a failed ssh call is logged and counts as not measured', async () => {
    const d = deps({ remoteSize: () => Promise.reject(new Error('Permission denied (publickey)')) });
    assert.equal(await measureBeforeDestroy(d, box), undefined);
    assert.ok(d.logger.lines.some((l) => /^warn Could not measure \/root on #7 before destroying: Permission denied/.test(l)));
  });
});
