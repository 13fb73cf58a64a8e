/**
 * The transfer without rsync, its pure parts: the remote listing and rsync's quick check, sftp's
 * batch quoting, what an archive from the instance may not hold; and the Windows rules, run here
 * with path.win32 and a recording process control.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { posix, win32 } from 'node:path';
import { localPathArg } from '../../../src/core/transfer/argv';
import { refusedEntry } from '../../../src/core/transfer/nodeTar';
import { killGroup, stopGroups, type ProcessControl } from '../../../src/core/transfer/pipe';
import { changedEntries, parseRemoteIndex, readIndex, type LocalEntry } from '../../../src/core/transfer/quickCheck';
import { Readable } from 'node:stream';
import { sftpArgv, sftpBatch, sftpQuote } from '../../../src/core/transfer/sftp';

type ChildProcess = ReturnType<ProcessControl['spawn']>;
import { expandHome } from '../../../src/core/ssh/localKeys';
import { hostEntryText, sshFilePath } from '../../../src/core/ssh/config';

const index = (rows: string[][]) =>
  `motd\nGPU-RENTAL-INDEX-3b7e\n${rows.map((r) => r.join('\0')).join('\0')}\0\nGPU-RENTAL-INDEX-END-3b7e\n`;

describe('transfer without rsync: the quick check', () => {
  it('reads the NUL-separated listing after its marker, whole seconds, any name', () => {
    const got = parseRemoteIndex(
      index([
        ['a b/ü\n.bin', 'f', '12', '1700000000.9876'],
        ['a b', 'd', '4096', '1'],
        ['l', 'l', '3', '5'],
      ]),
    );
    assert.deepEqual(
      [...got!],
      [
        ['a b/ü\n.bin', { kind: 'f', size: 12, mtime: 1700000000 }],
        ['a b', { kind: 'd', size: 4096, mtime: 1 }],
        ['l', { kind: 'l', size: 3, mtime: 5 }],
      ],
    );
    assert.equal(parseRemoteIndex('GPU-RENTAL-INDEX-3b7e\nx\0f\0'), undefined, 'a listing cut short counts as none');
    assert.deepEqual([...parseRemoteIndex('GPU-RENTAL-INDEX-3b7e\n\nGPU-RENTAL-INDEX-END-3b7e\n')!], [], 'a missing folder lists nothing');
  });

  it('reads the listing off the session that goes on to unpack: the end marker split across pieces, a cap, an early end', async () => {
    const text = index([['a', 'f', '1', '2']]);
    const pieces = (s: string, at: number[]) => at.map((a, i) => Buffer.from(s.slice(a, at[i + 1])));
    const cut = text.length - 8;
    let chunks = 0;
    const got = await readIndex(Readable.from(pieces(`${text}more after it`, [0, 10, cut, text.length])), () => chunks++);
    assert.deepEqual([...parseRemoteIndex(got!)!.keys()], ['a']);
    assert.equal(chunks, 4, 'every piece counts as activity, the ones after the listing too');
    assert.equal(await readIndex(Readable.from([Buffer.from(text.slice(0, 40))]), () => {}), undefined, 'ended before its end');
    assert.equal(await readIndex(Readable.from([Buffer.from(text)]), () => {}, 20), undefined, 'past the cap');
  });

  it('sends a file whose size or whole-second mtime differs, or that is missing; a folder only when missing; links always', () => {
    const local: LocalEntry[] = [
      { path: 'same', kind: 'f', size: 10, mtime: 100, mode: 0o644 },
      { path: 'grown', kind: 'f', size: 11, mtime: 100, mode: 0o644 },
      { path: 'touched', kind: 'f', size: 10, mtime: 101, mode: 0o644 },
      { path: 'new', kind: 'f', size: 1, mtime: 1, mode: 0o644 },
      { path: 'dir', kind: 'd', size: 0, mtime: 5, mode: 0o644 },
      { path: 'newdir', kind: 'd', size: 0, mtime: 5, mode: 0o644 },
      { path: 'link', kind: 'l', size: 0, mtime: 5, mode: 0o644 },
      { path: 'was-dir', kind: 'f', size: 10, mtime: 100, mode: 0o644 },
    ];
    const remote = parseRemoteIndex(
      index([
        ['same', 'f', '10', '100.5'],
        ['grown', 'f', '10', '100'],
        ['touched', 'f', '10', '100'],
        ['dir', 'd', '4096', '9'],
        ['link', 'l', '4', '5'],
        ['was-dir', 'd', '10', '100'],
      ]),
    );
    assert.deepEqual(
      changedEntries(local, remote).map((e) => e.path),
      ['grown', 'touched', 'new', 'newdir', 'link', 'was-dir'],
    );
    assert.equal(changedEntries(local, undefined).length, local.length, 'no listing: everything');
  });
});

describe('transfer without rsync: sftp batches', () => {
  it('quotes every path for sftp: double quotes, backslash escapes, globs literal inside quotes', () => {
    assert.equal(sftpQuote('plain'), '"plain"');
    assert.equal(sftpQuote(`-a "b" c\\d *[1]? é`), `"-a \\"b\\" c\\\\d *[1]? é"`);
    assert.throws(() => sftpQuote('a\nb'), /control character/);
  });

  it('puts or resumes with mtimes kept, making each remote folder first; a remote path starting with - gets ./', () => {
    const file = { local: '/home/me/-w "x".bin', remote: '-out/sub/w.bin', size: 9 };
    assert.equal(
      sftpBatch('upload', file, true),
      ['-mkdir "./-out"', '-mkdir "./-out/sub"', 'reput -p "/home/me/-w \\"x\\".bin" "./-out/sub/w.bin"', ''].join('\n'),
    );
    assert.equal(
      sftpBatch('upload', { ...file, remote: '/root/w.bin' }, false),
      '-mkdir "/root"\nput -p "/home/me/-w \\"x\\".bin" "/root/w.bin"\n',
    );
    assert.equal(sftpBatch('download', file, true), 'reget -p "./-out/sub/w.bin" "/home/me/-w \\"x\\".bin"\n');
    assert.equal(sftpBatch('download', file, false), 'get -p "./-out/sub/w.bin" "/home/me/-w \\"x\\".bin"\n');
  });

  it('runs sftp through the same alias and options as ssh', () => {
    const target = { instanceId: 3, alias: 'gpu-rental-3', args: ['-F', 'C:\\Users\\me\\.ssh\\gpu-rental\\config'] };
    const argv = sftpArgv(target, '/x/ssh');
    assert.deepEqual(argv.slice(0, 6), ['-b', '-', '-S', '/x/ssh', '-F', 'C:\\Users\\me\\.ssh\\gpu-rental\\config']);
    assert.ok(argv.includes('BatchMode=yes'));
    assert.equal(argv.at(-1), 'gpu-rental-3');
    assert.ok(!argv.includes('--'), 'sftp takes the host last, with no command');
    const direct = sftpArgv({ instanceId: 4, alias: 'root@127.0.0.1', args: ['-i', '/k', '-p', '2222', '-l', 'me'] });
    assert.deepEqual(direct.slice(0, 8), ['-b', '-', '-i', '/k', '-P', '2222', '-o', 'User=me'], "ssh's -p and -l as sftp spells them");
    assert.equal(direct.at(-1), 'root@127.0.0.1');
  });
});

describe('transfer without rsync: what an archive from the instance may hold', () => {
  it('refuses absolute paths, .., devices, and links that lead outside the destination', () => {
    assert.equal(refusedEntry('data/a.bin', 'File'), undefined);
    assert.equal(refusedEntry('data/sub', 'Directory'), undefined);
    assert.equal(refusedEntry('data/sub/l', 'SymbolicLink', '../x'), undefined, 'a link inside stays');
    assert.equal(refusedEntry('data/l', 'Link', 'data/a.bin'), undefined);
    assert.match(refusedEntry('/etc/passwd', 'File')!, /absolute/);
    assert.match(refusedEntry('C:\\Windows\\x', 'File')!, /absolute/);
    assert.match(refusedEntry('data/../../x', 'File')!, /\.\./);
    assert.match(refusedEntry('data\\..\\..\\x', 'File')!, /\.\./);
    assert.match(refusedEntry('data/l', 'SymbolicLink', '../../etc')!, /outside/);
    assert.match(refusedEntry('data/l', 'SymbolicLink', '/etc')!, /absolute/);
    assert.match(refusedEntry('data/h', 'Link', '../x')!, /outside/);
    assert.match(refusedEntry('data/dev', 'CharacterDevice')!, /not a file/);
  });
});

describe('Windows rules (path.win32 on any OS)', () => {
  it('a drive letter never reaches a tool as host:path', () => {
    assert.equal(localPathArg('D:\\data\\run 1', win32), '/cygdrive/d/data/run 1');
    assert.equal(localPathArg('c:/Users/me', win32), '/cygdrive/c/Users/me');
    assert.equal(localPathArg('D:\\', win32), '/cygdrive/d');
    assert.equal(localPathArg('\\\\server\\share\\x', win32), '//server/share/x');
    assert.equal(localPathArg('/home/me/x:y', posix), '/home/me/x:y');
    for (const p of ['D:\\data', 'z:x', '\\\\srv\\s\\a:b', 'E:\\a:b\\c']) {
      assert.doesNotMatch(localPathArg(p, win32), /^[^/]*:/, `${p} would read as host:path`);
    }
  });

  it('expands %USERPROFILE% and ~\\ in a key path on Windows, ~/ everywhere', () => {
    const home = 'C:\\Users\\Zoë';
    assert.equal(expandHome('%USERPROFILE%\\.ssh\\id_ed25519', home, win32), 'C:\\Users\\Zoë\\.ssh\\id_ed25519');
    assert.equal(expandHome('%userprofile%/.ssh/id_rsa', home, win32), 'C:\\Users\\Zoë\\.ssh\\id_rsa');
    assert.equal(expandHome('~\\.ssh\\k', home, win32), 'C:\\Users\\Zoë\\.ssh\\k');
    assert.equal(expandHome('~/.ssh/k', home, win32), 'C:\\Users\\Zoë\\.ssh\\k');
    assert.equal(expandHome('%USERPROFILEX%\\k', home, win32), '%USERPROFILEX%\\k', 'only the whole name');
    assert.equal(expandHome('%USERPROFILE%\\k', '/home/z', posix), '%USERPROFILE%\\k', 'not on Linux or macOS');
    assert.equal(expandHome('~/.ssh/k', '/home/z', posix), '/home/z/.ssh/k');
  });

  it('writes key and known-hosts paths ssh reads literally: % doubled, Windows paths with forward slashes', () => {
    assert.equal(sshFilePath('C:\\Users\\me\\.ssh\\id_ed25519'), 'C:/Users/me/.ssh/id_ed25519');
    assert.equal(sshFilePath('\\\\srv\\home\\me\\k'), '//srv/home/me/k');
    assert.equal(sshFilePath('/home/100%/k'), '/home/100%%/k');
    const text = hostEntryText({
      alias: 'gpu-rental-5',
      hostName: '10.0.0.5',
      port: 22,
      identityFile: 'C:\\Users\\Zoë Q\\.ssh\\id_ed25519',
      knownHostsFile: 'C:\\Users\\Zoë Q\\.ssh\\gpu-rental\\known_hosts',
    });
    assert.match(text, /^ {2}IdentityFile "C:\/Users\/Zoë Q\/.ssh\/id_ed25519"$/m);
    assert.match(text, /^ {2}UserKnownHostsFile "C:\/Users\/Zoë Q\/.ssh\/gpu-rental\/known_hosts"$/m);
  });

  function recorder(platform: NodeJS.Platform) {
    const spawned: Array<{ command: string; args: readonly string[] }> = [];
    const signalled: Array<[number, string]> = [];
    const control: ProcessControl = {
      platform,
      spawn: ((command: string, args: readonly string[]) => {
        spawned.push({ command, args });
        return new EventEmitter() as ChildProcess;
      }) as unknown as ProcessControl['spawn'],
      kill: (pid, signal) => signalled.push([pid, signal]),
    };
    return { control, spawned, signalled };
  }

  function child(pid: number): ChildProcess & { own: string[] } {
    const own: string[] = [];
    return Object.assign(new EventEmitter(), {
      pid,
      exitCode: null,
      signalCode: null,
      own,
      kill: (s: string) => own.push(s),
    }) as unknown as ChildProcess & { own: string[] };
  }

  it('on Windows, Cancel ends the child and its children by id (taskkill /T /F), with no process group', () => {
    const { control, spawned, signalled } = recorder('win32');
    const c = child(4242);
    stopGroups([c], control);
    assert.deepEqual(spawned, [{ command: 'taskkill', args: ['/pid', '4242', '/T', '/F'] }]);
    assert.deepEqual(signalled, [], 'no group signal');
  });

  it('elsewhere, Cancel signals the whole process group', () => {
    const { control, spawned, signalled } = recorder('linux');
    const c = child(77);
    killGroup(c, 'SIGTERM', control);
    assert.deepEqual(signalled, [[-77, 'SIGTERM']]);
    assert.deepEqual(spawned, []);
    const ended = Object.assign(child(78), { exitCode: 0 });
    killGroup(ended, 'SIGTERM', control);
    assert.deepEqual(signalled, [[-77, 'SIGTERM']], 'a child that ended is left alone');
  });
});
