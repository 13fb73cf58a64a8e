// Copies the service runs for the user move the containers' real files: between two instances
// (copy_direct) and between an instance and a cloud connection (rclone), reported in the
// destination's status_msg, cancellable, and never writing outside an instance or a bucket.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { containersAvailable } from '../../marketplace/container';
import { call, containerPath, control, eventually, obj, rentOne, show, simulatorForSuite, type Answer } from '../../support';

/** Writes files into an instance's container: `{'/workspace/data/a.txt': 'a'}`. */
function put(sim: Parameters<typeof containerPath>[0], id: number, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const host = containerPath(sim, id, path);
    mkdirSync(dirname(host), { recursive: true });
    writeFileSync(host, text);
  }
}

function text(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Waits until the instance's status_msg matches `pattern`; returns it. */
function statusOf(sim: Parameters<typeof show>[0], id: number, pattern: RegExp): Promise<string> {
  return eventually(
    async () => {
      const msg = String((await show(sim, id))?.status_msg ?? '');
      return pattern.test(msg) ? msg : undefined;
    },
    `status_msg of ${id} to match ${String(pattern)}`,
    10_000,
  );
}

function refusal(answer: Answer): { status: number; error: unknown; msg: unknown } {
  const body = obj(answer);
  assert.equal(body.success, false, answer.text);
  return { status: answer.status, error: body.error, msg: body.msg };
}

describe('marketplace: copies between instances and with cloud connections', function () {
  this.timeout(60_000);
  const sim = simulatorForSuite({ onstart: true, bootSeconds: 0.2, seed: 45 });

  async function running(): Promise<number> {
    const { id } = await rentOne(sim, { onstart: 'true' });
    await eventually(async () => ((await show(sim, id))?.actual_status === 'running' ? true : undefined), 'running', 10_000);
    // The container (and with it the store) comes up just after the instance reports running.
    await eventually(async () => existsSync(containerPath(sim, id, '/workspace')) || undefined, 'the store', 5_000);
    return id;
  }

  it('copies a folder between two instances with rsync’s slash rule, and says so in the destination’s status and log', async () => {
    const a = await running();
    const b = await running();
    put(sim, a, { '/workspace/data/a.txt': 'alpha', '/workspace/data/sub/b.txt': 'beta' });

    const answer = await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
      client_id: 'me',
      src_id: a,
      dst_id: `C.${b}`,
      src_path: '/workspace/data/',
      dst_path: '/workspace/in/',
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(obj(answer).success, true);
    assert.match(String(obj(answer).msg), /copy initiated/);
    assert.match(await statusOf(sim, b, /done/), /Remote to Remote copy: done, 2 files, 9 bytes/);
    assert.equal(text(containerPath(sim, b, '/workspace/in/a.txt')), 'alpha', 'a trailing slash copies what the folder holds');
    assert.equal(text(containerPath(sim, b, '/workspace/in/sub/b.txt')), 'beta');

    await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
      src_id: String(a),
      dst_id: b,
      src_path: '/workspace/data',
      dst_path: '/root',
    });
    await eventually(
      async () => text(containerPath(sim, b, '/root/data/sub/b.txt')) === 'beta' || undefined,
      'no slash: the folder itself',
      10_000,
    );
    const { result_url: url } = obj(await call(sim, 'PUT', `/api/v0/instances/request_logs/${b}/`, {}));
    const log = await eventually(
      async () => {
        const res = await fetch(String(url));
        return res.status === 200 ? res.text() : undefined;
      },
      'the log',
      5_000,
    );
    assert.match(log, new RegExp(`Remote to Remote copy C\\.${a}:/workspace/data/ -> C\\.${b}:/workspace/in/: queued`));
    assert.match(log, /Remote to Remote copy: done, 2 files, 9 bytes/);
  });

  it('keeps the modification times of files and folders, as rsync -a does, and brings empty folders', async () => {
    const a = await running();
    const b = await running();
    put(sim, a, { '/workspace/ckpt/checkpoint-9/model.safetensors': 'nine', '/workspace/ckpt/checkpoint-12/rng/state.pth': 'twelve' });
    mkdirSync(containerPath(sim, a, '/workspace/ckpt/checkpoint-12/empty'));
    const times: Record<string, number> = {
      '/workspace/ckpt/checkpoint-9/model.safetensors': 1_764_000_100,
      '/workspace/ckpt/checkpoint-9': 1_764_000_101,
      '/workspace/ckpt/checkpoint-12/rng/state.pth': 1_764_000_200,
      '/workspace/ckpt/checkpoint-12/rng': 1_764_000_201,
      '/workspace/ckpt/checkpoint-12/empty': 1_764_000_202,
      '/workspace/ckpt/checkpoint-12': 1_764_000_203,
      '/workspace/ckpt': 1_764_000_300,
    };
    for (const [path, at] of Object.entries(times)) utimesSync(containerPath(sim, a, path), at, at);
    await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
      src_id: a,
      dst_id: b,
      src_path: '/workspace/ckpt/',
      dst_path: '/workspace/ckpt/',
    });
    await statusOf(sim, b, /done/);
    for (const [path, at] of Object.entries(times))
      assert.equal(Math.floor(statSync(containerPath(sim, b, path)).mtimeMs / 1000), at, `the time of ${path}`);
  });

  it("refuses another account's instance (404), a stopped one and paths outside the container's folders (400), and no key (401)", async () => {
    const a = await running();
    const b = await running();
    const other = (await control(sim, 'POST', 'accounts', { credit: 50 })) as { id: number; key: string };
    const theirs = await rentOne(sim, {}, other.key);
    const body = { src_id: a, dst_id: b, src_path: '/workspace/', dst_path: '/workspace/' };

    assert.equal(refusal(await call(sim, 'PUT', '/api/v0/commands/copy_direct/', { ...body, dst_id: theirs.id })).status, 404);
    assert.equal(refusal(await call(sim, 'PUT', '/api/v0/commands/copy_direct/', { ...body, src_id: 'nonsense' })).msg, 'Invalid src_id.');
    assert.equal(
      refusal(await call(sim, 'PUT', '/api/v0/commands/copy_direct/', { ...body, src_path: '/etc/passwd' })).msg,
      'Invalid src_path.',
    );
    assert.equal(
      refusal(await call(sim, 'PUT', '/api/v0/commands/copy_direct/', { ...body, dst_path: '/workspace/../etc' })).msg,
      'Invalid dst_path.',
    );
    assert.equal(refusal(await call(sim, 'PUT', '/api/v0/commands/copy_direct/', { ...body, dst_id: 'V.45' })).status, 400);
    assert.equal((await call(sim, 'PUT', '/api/v0/commands/copy_direct/', body, null)).status, 401);
    await call(sim, 'PUT', `/api/v0/instances/${b}/`, { state: 'stopped' });
    const stopped = refusal(await call(sim, 'PUT', '/api/v0/commands/copy_direct/', body));
    assert.equal(stopped.status, 400);
    assert.match(String(stopped.msg), /not running/);
  });

  it('copies from a stopped instance and from an outbid one (their disks stay readable), never to a stopped one', async () => {
    const stoppedSrc = await running();
    const { id: outbidSrc } = await rentOne(sim, { onstart: 'true', price: 5 });
    await eventually(async () => existsSync(containerPath(sim, outbidSrc, '/workspace')) || undefined, 'the bid instance’s store', 10_000);
    const dst = await running();
    put(sim, stoppedSrc, { '/workspace/ckpt/step-1.pt': 'one', '/workspace/ckpt/step-2.pt': 'two' });
    put(sim, outbidSrc, { '/root/ckpt/step-9.pt': 'nine' });
    await call(sim, 'PUT', `/api/v0/instances/${stoppedSrc}/`, { state: 'stopped' });
    await control(sim, 'POST', `instances/${outbidSrc}/outbid`, {});
    assert.deepEqual([(await show(sim, stoppedSrc))?.actual_status, (await show(sim, outbidSrc))?.actual_status], ['stopped', 'stopped']);

    const fromStopped = await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
      src_id: stoppedSrc,
      dst_id: dst,
      src_path: '/workspace/ckpt/',
      dst_path: '/workspace/a/',
    });
    assert.equal(fromStopped.status, 200, fromStopped.text);
    assert.match(await statusOf(sim, dst, /done|failed/), /Remote to Remote copy: done, 2 files, 6 bytes/);
    assert.equal(text(containerPath(sim, dst, '/workspace/a/step-2.pt')), 'two');

    const fromOutbid = await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
      src_id: `C.${outbidSrc}`,
      dst_id: dst,
      src_path: '/root/ckpt',
      dst_path: '/workspace/b/',
    });
    assert.equal(fromOutbid.status, 200, fromOutbid.text);
    await eventually(async () => text(containerPath(sim, dst, '/workspace/b/ckpt/step-9.pt')) === 'nine' || undefined, 'the copy', 10_000);

    const toStopped = refusal(
      await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
        src_id: dst,
        dst_id: stoppedSrc,
        src_path: '/workspace/',
        dst_path: '/root/',
      }),
    );
    assert.equal(toStopped.status, 400);
    assert.match(String(toStopped.msg), new RegExp(`C\\.${stoppedSrc} is not running`));
    assert.equal(text(containerPath(sim, stoppedSrc, '/root/a/step-1.pt')), undefined, 'nothing reached the stopped instance');
  });

  it('copies a stopped instance to a cloud connection, but not from the cloud into it', async () => {
    const id = await running();
    put(sim, id, { '/workspace/ckpt/latest.pt': 'weights' });
    await call(sim, 'PUT', `/api/v0/instances/${id}/`, { state: 'stopped' });
    const [bucket] = (
      (await control(sim, 'GET', `accounts/${sim.accountId}/cloud`)) as { connections: Array<{ id: number; path: string }> }
    ).connections;
    const up = await call(sim, 'POST', '/api/v0/commands/rclone/', {
      instance_id: id,
      src: '/workspace/ckpt/',
      dst: `stopped-${id}/`,
      selected: bucket!.id,
      transfer: 'Instance To Cloud',
    });
    assert.equal(up.status, 200, up.text);
    await eventually(async () => text(join(bucket!.path, `stopped-${id}/latest.pt`)) === 'weights' || undefined, 'the bucket copy', 10_000);
    const r = (await show(sim, id))!;
    assert.deepEqual([r.actual_status, r.status_msg], ['stopped', 'Stopped by user'], 'it stays stopped and says why');
    const down = refusal(
      await call(sim, 'POST', '/api/v0/commands/rclone/', {
        instance_id: id,
        src: `stopped-${id}/`,
        dst: '/root/back/',
        selected: bucket!.id,
        transfer: 'Cloud To Instance',
      }),
    );
    assert.equal(down.status, 400);
    assert.match(String(down.msg), /not running/);
  });

  it('cancels a copy before it writes anything', async () => {
    const a = await running();
    const b = await running();
    put(sim, a, Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`/workspace/many/f${i}.txt`, `file ${i}`])));
    await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
      src_id: a,
      dst_id: b,
      src_path: '/workspace/many/',
      dst_path: '/workspace/got/',
    });
    const cancel = await call(sim, 'DELETE', '/api/v0/commands/copy_direct/', { client_id: 'me', dst_id: b });
    assert.equal(cancel.status, 200, cancel.text);
    assert.match(String(obj(cancel).msg), /canceled/);
    assert.match(String((await show(sim, b))?.status_msg), /canceled/);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(existsSync(containerPath(sim, b, '/workspace/got')), false, 'nothing was copied');
    assert.match(String(obj(await call(sim, 'DELETE', '/api/v0/commands/copy_direct/', { dst_id: b })).msg), /No copy/);
  });

  it('never writes through a link that leads out of the destination instance', async () => {
    const a = await running();
    const b = await running();
    const outside = mkdtempSync(join(tmpdir(), 'gpu-rental-outside-'));
    try {
      put(sim, a, { '/workspace/x.txt': 'x' });
      symlinkSync(outside, containerPath(sim, b, '/workspace/out'));
      await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
        src_id: a,
        dst_id: b,
        src_path: '/workspace/x.txt',
        dst_path: '/workspace/out/sub/',
      });
      assert.match(await statusOf(sim, b, /failed|done/), /failed after 0 files: .*outside the instance/);
      assert.deepEqual(readdirSync(outside), []);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reports a full destination disk as a failed copy', async function () {
    if (!containersAvailable()) {
      console.log('      (skipped: disks are real only when instances are containers: root and unshare)');
      this.skip();
    }
    const a = await running();
    const b = await running();
    put(sim, a, { '/workspace/big.bin': 'x'.repeat(3_000_000) });
    await control(sim, 'POST', `instances/${b}/disk`, { bytes: 1_000_000 });
    await call(sim, 'PUT', '/api/v0/commands/copy_direct/', {
      src_id: a,
      dst_id: b,
      src_path: '/workspace/big.bin',
      dst_path: '/workspace/',
    });
    assert.match(await statusOf(sim, b, /failed|done/), /Remote to Remote copy: failed after 0 files: no space left on device/);
  });

  it('lists a seeded cloud connection and copies to it and back with rclone', async () => {
    const id = await running();
    const listed = await call(sim, 'GET', '/api/v0/users/cloud_integrations/');
    assert.equal(listed.status, 200);
    const connections = listed.json as Array<{ id: number; cloud_type: string; name: string }>;
    assert.ok(Array.isArray(connections), 'a bare list');
    assert.deepEqual(
      connections.map((c) => [c.cloud_type, c.name]),
      [['s3', 'sim-bucket']],
    );
    const [bucket] = (
      (await control(sim, 'GET', `accounts/${sim.accountId}/cloud`)) as { connections: Array<{ id: number; path: string }> }
    ).connections;
    assert.equal(bucket!.id, connections[0]!.id);

    put(sim, id, { '/workspace/out/model.bin': 'weights', '/workspace/out/notes/readme.md': 'notes' });
    const up = await call(sim, 'POST', '/api/v0/commands/rclone/', {
      instance_id: id,
      src: '/workspace/out/',
      dst: 'backups/run1/',
      selected: String(bucket!.id),
      transfer: 'Instance To Cloud',
      flags: [],
    });
    assert.equal(up.status, 200, up.text);
    assert.match(await statusOf(sim, id, /done|failed/), /Cloud copy: done, 2 files/);
    assert.equal(text(join(bucket!.path, 'backups/run1/model.bin')), 'weights');
    assert.equal(text(join(bucket!.path, 'backups/run1/notes/readme.md')), 'notes');

    const down = await call(sim, 'POST', '/api/v0/commands/rclone/', {
      instance_id: `C.${id}`,
      src: 'backups/run1',
      dst: '/root/restored/',
      selected: bucket!.id,
      transfer: 'Cloud To Instance',
      flags: ['--dry-run=false'],
    });
    assert.equal(down.status, 200, down.text);
    await eventually(
      async () => text(containerPath(sim, id, '/root/restored/run1/model.bin')) === 'weights' || undefined,
      'the copy back',
      10_000,
    );

    const bad = { instance_id: id, src: '/workspace/out/', dst: 'x/', selected: bucket!.id, transfer: 'Instance To Cloud' };
    assert.match(String(refusal(await call(sim, 'POST', '/api/v0/commands/rclone/', { ...bad, selected: 999_999 })).msg), /selected/);
    assert.match(String(refusal(await call(sim, 'POST', '/api/v0/commands/rclone/', { ...bad, transfer: 'Sideways' })).msg), /transfer/);
    assert.equal(refusal(await call(sim, 'POST', '/api/v0/commands/rclone/', { ...bad, src: '/proc/1/environ' })).msg, 'Invalid src.');
    assert.equal((await call(sim, 'DELETE', '/api/v0/commands/rclone/', { dst_id: id })).status, 200);
  });

  it('adds a cloud connection through the control API; another account does not see it', async () => {
    const added = (await control(sim, 'POST', `accounts/${sim.accountId}/cloud`, { name: 'archive', cloud_type: 'gcs' })) as {
      connection: { id: number; name: string; path: string };
    };
    assert.ok(existsSync(added.connection.path));
    const mine = (await call(sim, 'GET', '/api/v0/users/cloud_integrations/')).json as Array<{ name: string }>;
    assert.deepEqual(
      mine.map((c) => c.name),
      ['sim-bucket', 'archive'],
    );
    const other = (await control(sim, 'POST', 'accounts', {})) as { key: string };
    const theirs = (await call(sim, 'GET', '/api/v0/users/cloud_integrations/', undefined, other.key)).json as Array<{
      name: string;
      id: number;
    }>;
    assert.deepEqual(
      theirs.map((c) => c.name),
      ['sim-bucket'],
    );
    assert.notEqual(theirs[0]!.id, added.connection.id);
  });
});
