import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { findLocalKey, generateKey, keyFingerprintPart } from '../../../src/core/ssh/localKeys';
import { waitForSshBanner } from '../../../src/core/ssh/probe';
import { tempDirForSuite } from '../../support';

describe('local SSH keys', () => {
  const dir = tempDirForSuite('gpu-rental-keys-', { each: true });

  it('makes an ed25519 key with private mode 0600 in a 0700 folder, and never overwrites', async () => {
    const path = join(dir(), 'ssh', 'gpu-rental_ed25519');
    const key = await generateKey(path, 'gpu-rental test');
    assert.match(key.publicKey, /^ssh-ed25519 \S+ gpu-rental test$/);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal((await stat(join(dir(), 'ssh'))).mode & 0o777, 0o700);
    const before = await readFile(path, 'utf8');
    await assert.rejects(generateKey(path, 'again'), /already exists; it was left as it is/);
    assert.equal(await readFile(path, 'utf8'), before);
  });

  it('two makes of one key at once: one key is made, the other ends with an error, none waits on a question', async () => {
    const path = join(dir(), 'ssh', 'together_ed25519');
    const results = await Promise.allSettled([generateKey(path, 'one'), generateKey(path, 'two')]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(results));
    const made = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ publicKey: string }>).value;
    assert.equal((await readFile(`${path}.pub`, 'utf8')).trim(), made.publicKey, 'the key on disk is the one reported made');
  });

  it('finds the configured key, else the usual id_* files with their .pub, and reads only the public half', async () => {
    assert.equal(await findLocalKey(undefined, dir()), undefined);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'rsa-less', '-f', join(dir(), 'id_ecdsa')]);
    await writeFile(join(dir(), 'id_ed25519'), 'a private key without its .pub');
    const found = await findLocalKey(undefined, dir());
    assert.equal(found?.privateKeyPath, join(dir(), 'id_ecdsa'), 'id_ed25519 has no .pub, so id_ecdsa is next');
    const custom = join(dir(), 'custom');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'custom', '-f', custom]);
    assert.equal((await findLocalKey(custom, dir()))?.privateKeyPath, custom);
    assert.equal(keyFingerprintPart('ssh-ed25519 AAAA comment here'), 'ssh-ed25519 AAAA');
  });
});

describe('SSH readiness probe', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  function listen(onSocket: (s: Socket) => void): Promise<number> {
    server = createServer(onSocket);
    return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port)));
  }

  it('waits until the port answers with an SSH banner', async () => {
    let accept = false;
    const port = await listen((s) => (accept ? s.end('SSH-2.0-OpenSSH_9.2p1 Debian\r\n') : s.destroy()));
    setTimeout(() => (accept = true), 400);
    const t0 = Date.now();
    assert.equal(await waitForSshBanner('127.0.0.1', port, { timeoutMs: 5_000, intervalMs: 50 }), 'SSH-2.0-OpenSSH_9.2p1 Debian');
    assert.ok(Date.now() - t0 >= 350);
  });

  it('does not take another service for SSH, and gives up with what it saw', async () => {
    const port = await listen((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await assert.rejects(
      waitForSshBanner('127.0.0.1', port, { timeoutMs: 600, intervalMs: 50 }),
      /did not answer within 1 s \(answered, but not with an SSH banner/,
    );
  });
});
