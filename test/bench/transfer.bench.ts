// npm run bench (part): uploads to a simulator instance over its real sshd, in one run.
// 1. 200 MB in 2,000 files, by the extension's core with rsync (upload(): its flags, excludes, the
//    remote mkdir and progress parsing) against plain `rsync -a` over the same ssh, alternately,
//    each into a fresh folder: both rates (MB/s, decimal) and the ratio (target >= 0.95x).
// 2. The same first upload by the Node path (no local rsync or tar: Node's tar into the
//    instance's) against plain rsync: the time ratio (target <= 1.3x).
// 3. A re-upload after one of the 2,000 files changed: the Node path (listing, quick check, the
//    one file) against plain rsync: the time ratio (target <= 1.2x), and the files each sent.
// 4. A large file (1 GB, GPU_RENTAL_BENCH_LARGE_MB to change) over sftp with the link dropped at
//    half of it, then uploaded again: the offset it resumed from (target >= 45 %).
// Needs root and an OpenSSH sshd (/usr/sbin/sshd, or GPU_RENTAL_SSHD); skipped otherwise.
import { spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { createWriteStream, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rsyncRemoteShell } from '../../src/core/transfer/argv';
import { TransferError } from '../../src/core/transfer/errors';
import { upload } from '../../src/core/transfer/runner';
import { droppingSsh } from '../support/droppingSsh';
import { sshBench } from '../support';
import { sshInstance } from '../unit/transfer/instance';

const FILES = 2_000;
const FILE_BYTES = 100_000;
const ROUNDS = 5;
const AGAIN_ROUNDS = 11;

/** Bytes that do not compress, the same on every run (AES-CTR over zeros with a fixed key). */
function data(bytes: number): Buffer {
  const cipher = createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16, 0));
  return cipher.update(Buffer.alloc(bytes));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

sshBench('transfer', {}, async (sim, home) => {
  const box = await sshInstance(sim.url, home);
  const src = join(home, 'project');
  const all = data(FILES * FILE_BYTES);
  for (let i = 0; i < FILES; i++) {
    const dir = join(src, `part${String(i % 20).padStart(2, '0')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${String(i).padStart(4, '0')}.bin`), all.subarray(i * FILE_BYTES, (i + 1) * FILE_BYTES));
  }
  const totalMb = (FILES * FILE_BYTES) / 1e6;
  const plainRates: number[] = [];
  const coreRates: number[] = [];
  const plain = (dest: string): number => {
    const t0 = performance.now();
    const r = spawnSync('rsync', ['-a', '-e', rsyncRemoteShell(box.target), `${src}/`, `${box.target.alias}:${dest}/`], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`plain rsync failed: ${r.stderr}`);
    return totalMb / ((performance.now() - t0) / 1000);
  };
  const core = async (dest: string): Promise<number> => {
    const t0 = performance.now();
    const result = await upload(box.target, {
      localDir: src,
      remoteDir: dest,
      excludes: ['.git/', 'node_modules/', '__pycache__/', '.venv/'],
    });
    if (result.filesSent !== FILES) throw new Error(`upload sent ${result.filesSent} files, not ${FILES}`);
    return totalMb / ((performance.now() - t0) / 1000);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const a = `${box.remoteTemp}/plain${round}`;
    const b = `${box.remoteTemp}/core${round}`;
    // Alternate which goes first, so neither always meets a warm or a cold cache.
    if (round % 2 === 0) {
      plainRates.push(plain(a));
      coreRates.push(await core(b));
    } else {
      coreRates.push(await core(b));
      plainRates.push(plain(a));
    }
    await box.sh(`rm -rf -- '${a}' '${b}'`);
  }
  const p = median(plainRates);
  const c = median(coreRates);
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
  console.log(`transfer: upload of ${totalMb} MB in ${FILES} files over ssh to a simulator instance, median of ${ROUNDS}`);
  console.log(`  plain rsync -a:           ${p.toFixed(1)} MB/s  (${fmt(plainRates)})`);
  console.log(`  GPU Rental upload():      ${c.toFixed(1)} MB/s  (${fmt(coreRates)})`);
  console.log(`  ratio: ${(c / p).toFixed(2)}x (target >= 0.95x)`);

  // 2. The Node path's first upload against plain rsync, alternately, each into a fresh folder.
  const hidden = { rsync: '/nonexistent/rsync', tar: '/nonexistent/tar' };
  const plainTimes: number[] = [];
  const nodeTimes: number[] = [];
  const timed = async (f: () => unknown): Promise<number> => {
    const t0 = performance.now();
    await f();
    return (performance.now() - t0) / 1000;
  };
  const plainRsync = (dest: string) => {
    const r = spawnSync('rsync', ['-a', '--stats', '-e', rsyncRemoteShell(box.target), `${src}/`, `${box.target.alias}:${dest}/`], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`plain rsync failed: ${r.stderr}`);
    return Number(/Number of regular files transferred: ([\d,]+)/.exec(r.stdout)?.[1]?.replace(/,/g, '') ?? NaN);
  };
  const nodeUpload = async (dest: string) => {
    const result = await upload(box.target, { localDir: src, remoteDir: dest, excludes: [] }, { tools: hidden });
    if (result.method !== 'tar') throw new Error(`the Node path was not taken: ${result.method}`);
    return result.filesSent;
  };
  const plainDest = `${box.remoteTemp}/plain-again`;
  const nodeDest = `${box.remoteTemp}/node-again`;
  for (let round = 0; round < ROUNDS; round++) {
    const last = round === ROUNDS - 1;
    const a = last ? plainDest : `${box.remoteTemp}/plainfirst${round}`;
    const b = last ? nodeDest : `${box.remoteTemp}/nodefirst${round}`;
    let sent = 0;
    if (round % 2 === 0) {
      plainTimes.push(await timed(() => plainRsync(a)));
      nodeTimes.push(await timed(async () => (sent = await nodeUpload(b))));
    } else {
      nodeTimes.push(await timed(async () => (sent = await nodeUpload(b))));
      plainTimes.push(await timed(() => plainRsync(a)));
    }
    if (sent !== FILES) throw new Error(`the Node path sent ${sent} files, not ${FILES}`);
    if (!last) await box.sh(`rm -rf -- '${a}' '${b}'`);
  }
  const pf = median(plainTimes);
  const nf = median(nodeTimes);
  const secs = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  console.log(`transfer: first upload of ${totalMb} MB in ${FILES} files, no local rsync or tar (Node path) vs rsync, median of ${ROUNDS}`);
  console.log(`  plain rsync -a:           ${pf.toFixed(2)} s  (${secs(plainTimes)})`);
  console.log(`  Node path upload():       ${nf.toFixed(2)} s  (${secs(nodeTimes)})`);
  console.log(`  ratio: ${(nf / pf).toFixed(2)}x rsync's time (target <= 1.3x)`);

  // 3. One file of the 2,000 changed (new bytes, same size, a new mtime), then each uploads again
  // into the folder it filled last round.
  const plainAgain: number[] = [];
  const nodeAgain: number[] = [];
  const sentBy = { plain: new Set<number>(), node: new Set<number>() };
  // Each round is short (about half a second), so more of them: a steadier median on a busy machine.
  for (let round = 0; round < AGAIN_ROUNDS; round++) {
    const i = 37 + round * 101;
    const file = join(src, `part${String(i % 20).padStart(2, '0')}`, `file${String(i).padStart(4, '0')}.bin`);
    writeFileSync(file, data(FILE_BYTES + round + 1).subarray(round + 1));
    utimesSync(file, new Date(), new Date(Date.now() + (round + 1) * 5_000));
    const p0 = async () => sentBy.plain.add(plainRsync(plainDest));
    const n0 = async () => sentBy.node.add(await nodeUpload(nodeDest));
    if (round % 2 === 0) {
      plainAgain.push(await timed(p0));
      nodeAgain.push(await timed(n0));
    } else {
      nodeAgain.push(await timed(n0));
      plainAgain.push(await timed(p0));
    }
  }
  const pa = median(plainAgain);
  const na = median(nodeAgain);
  console.log(`transfer: upload again after 1 of ${FILES} files changed, median of ${AGAIN_ROUNDS}`);
  console.log(`  plain rsync -a:           ${pa.toFixed(2)} s  (${secs(plainAgain)}), files sent: ${[...sentBy.plain].join(', ')}`);
  console.log(`  Node path upload():       ${na.toFixed(2)} s  (${secs(nodeAgain)}), files sent: ${[...sentBy.node].join(', ')}`);
  console.log(`  ratio: ${(na / pa).toFixed(2)}x rsync's time (target <= 1.2x)`);
  if ([...sentBy.node].some((n) => n !== 1)) throw new Error('the Node path must send exactly the one changed file');
  await box.sh(`rm -rf -- '${plainDest}' '${nodeDest}'`);

  // 4. A large file over sftp, the link dropped at half of it, then the upload again.
  const largeMb = Number(process.env['GPU_RENTAL_BENCH_LARGE_MB'] ?? 1000);
  const largeBytes = largeMb * 1e6;
  const bigDir = join(home, 'large');
  mkdirSync(bigDir);
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(join(bigDir, 'checkpoint.bin'));
    out.on('error', reject);
    const chunk = 16 * 1024 * 1024;
    const cipher = createCipheriv('aes-256-ctr', Buffer.alloc(32, 9), Buffer.alloc(16, 0));
    let written = 0;
    const more = () => {
      while (written < largeBytes) {
        const n = Math.min(chunk, largeBytes - written);
        written += n;
        if (!out.write(cipher.update(Buffer.alloc(n)))) return void out.once('drain', more);
      }
      out.end(resolve);
    };
    more();
  });
  const largeDest = `${box.remoteTemp}/large`;
  const dropAt = Math.floor(largeBytes / 2);
  const dropper = droppingSsh(home, 'dropping-ssh', dropAt);
  const t0 = performance.now();
  const cut = await upload(
    box.target,
    { localDir: bigDir, remoteDir: largeDest, excludes: [] },
    { tools: { ...hidden, ssh: dropper } },
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  const cutSeconds = (performance.now() - t0) / 1000;
  if (!(cut instanceof TransferError) || cut.fault !== 'connection')
    throw new Error(`the drop was not a connection failure: ${String(cut)}`);
  const t1 = performance.now();
  const again = await upload(box.target, { localDir: bigDir, remoteDir: largeDest, excludes: [] }, { tools: hidden });
  const againSeconds = (performance.now() - t1) / 1000;
  const from = again.resumedFrom?.get('checkpoint.bin') ?? 0;
  console.log(`transfer: a ${largeMb} MB file over sftp, the link dropped after ${(dropAt / 1e6).toFixed(0)} MB (50 %) of its traffic`);
  console.log(`  cut after ${cutSeconds.toFixed(1)} s; the upload again took ${againSeconds.toFixed(1)} s (checked by size and sha256)`);
  console.log(`  resumed from byte ${from} of ${largeBytes}: ${((from * 100) / largeBytes).toFixed(1)} % (target >= 45 %)`);
  await box.sh(`rm -rf -- '${box.remoteTemp}'`);
});
