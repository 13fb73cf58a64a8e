// npm run bench (part): upload throughput. 200 MB in 2,000 files sent to a simulator instance
// over its real sshd, by the extension's core (upload(): rsync with its flags, excludes, the
// remote mkdir and progress parsing) and by plain `rsync -a` over the same ssh, alternately, each
// into a fresh folder. Prints both rates (MB/s, decimal) and the ratio (target >= 0.95x). Then the
// same for the tar path: upload() without local rsync against `tar | gzip -3 | ssh tar -xz`.
// Needs root and an OpenSSH sshd (/usr/sbin/sshd, or GPU_RENTAL_SSHD); skipped otherwise.
import { spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rsyncRemoteShell } from '../../src/core/transfer/argv';
import { upload } from '../../src/core/transfer/runner';
import { sshBench } from '../support';
import { sshInstance } from '../unit/transfer/instance';

const FILES = 2_000;
const FILE_BYTES = 100_000;
const ROUNDS = 5;

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

  // The tar path (this machine without rsync 3.1, as stock macOS): the extension's pipeline
  // (stream.pipeline, the byte meter, gzip -3 when the instance has gzip) against the same pipe in
  // a shell, `tar | gzip -3 | ssh tar -xz`.
  const plainTarRates: number[] = [];
  const coreTarRates: number[] = [];
  const ssh = ['ssh', ...box.target.args.map((a) => `'${a.replace(/'/g, "'\\''")}'`), box.target.alias].join(' ');
  const plainTar = (dest: string): number => {
    const t0 = performance.now();
    const r = spawnSync('sh', ['-c', `tar -cf - -C '${src}' . | gzip -3 | ${ssh} "mkdir -p '${dest}' && tar -xzf - -C '${dest}'"`], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`plain tar pipe failed: ${r.stderr}`);
    return totalMb / ((performance.now() - t0) / 1000);
  };
  const coreTar = async (dest: string): Promise<number> => {
    const t0 = performance.now();
    const result = await upload(box.target, { localDir: src, remoteDir: dest, excludes: [] }, { tools: { rsync: '/nonexistent/rsync' } });
    if (result.method !== 'tar' || result.filesSent !== FILES)
      throw new Error(`tar upload sent ${result.filesSent} files by ${result.method}`);
    return totalMb / ((performance.now() - t0) / 1000);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const a = `${box.remoteTemp}/plaintar${round}`;
    const b = `${box.remoteTemp}/coretar${round}`;
    if (round % 2 === 0) {
      plainTarRates.push(plainTar(a));
      coreTarRates.push(await coreTar(b));
    } else {
      coreTarRates.push(await coreTar(b));
      plainTarRates.push(plainTar(a));
    }
    await box.sh(`rm -rf -- '${a}' '${b}'`);
  }
  const pt = median(plainTarRates);
  const ct = median(coreTarRates);
  console.log(`  tar | gzip -3 | ssh tar:  ${pt.toFixed(1)} MB/s  (${fmt(plainTarRates)})`);
  console.log(`  upload() by tar:          ${ct.toFixed(1)} MB/s  (${fmt(coreTarRates)})`);
  console.log(`  tar ratio: ${(ct / pt).toFixed(2)}x`);
  await box.sh(`rm -rf -- '${box.remoteTemp}'`);
});
