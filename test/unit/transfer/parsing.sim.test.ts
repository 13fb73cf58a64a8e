import assert from 'node:assert/strict';
import {
  excludeArgs,
  rsyncDownloadArgv,
  rsyncShellWord,
  rsyncUploadArgv,
  tarPackRemoteCommand,
  tarUnpackRemoteCommand,
} from '../../../src/core/transfer/argv';
import { ignoreRules, isIgnored, isIgnoredWithFolders } from '../../../src/core/transfer/ignore';
import { remoteLacksRsync } from '../../../src/core/transfer/runner';
import { classifyFailure, withDiskFigures } from '../../../src/core/transfer/errors';
import { describeProgress, formatBytes, parseRsyncProgress, parseRsyncStats, RateMeter } from '../../../src/core/transfer/progress';
import {
  checkRemotePath,
  decodeLsName,
  parseDiskFree,
  parseListing,
  parseProbe,
  remoteBaseName,
  remoteParent,
  UnusableRemotePath,
} from '../../../src/core/transfer/remotePath';
import type { SshTarget } from '../../../src/core/ssh/remote';

const target: SshTarget = { instanceId: 7, alias: 'gpu-rental-7', args: ['-F', "/home/o'neil/my ssh/config"] };

describe('transfer: rsync progress and sizes', () => {
  it('reads --info=progress2 lines, with and without the file counts, and nothing else', () => {
    assert.deepEqual(parseRsyncProgress('     84,123,456  42%   31.20MB/s    0:00:03 (xfr#12, to-chk=1988/2000)'), {
      bytes: 84_123_456,
      percent: 42,
      toCheck: 1988,
      totalFiles: 2000,
    });
    assert.deepEqual(parseRsyncProgress('         32,768   0%    0.00kB/s    0:00:00  '), { bytes: 32_768, percent: 0 });
    assert.deepEqual(parseRsyncProgress('  1.234.567 100%  1,00MB/s 0:00:01 (xfr#1, ir-chk=0/3)'), {
      bytes: 1_234_567,
      percent: 100,
      toCheck: 0,
      totalFiles: 3,
    });
    assert.equal(parseRsyncProgress('sending incremental file list'), undefined);
    assert.equal(parseRsyncProgress('Number of files: 3 (reg: 2, dir: 1)'), undefined);
  });

  it('reads the files and bytes sent from --stats', () => {
    const stats =
      'Number of files: 2,001 (reg: 2,000, dir: 1)\nNumber of regular files transferred: 1\nTotal file size: 200,000,000 bytes\nTotal transferred file size: 100,000 bytes\n';
    assert.deepEqual(parseRsyncStats(stats), { filesTransferred: 1, bytesTransferred: 100_000 });
    assert.deepEqual(parseRsyncStats(''), { filesTransferred: 0, bytesTransferred: 0 });
  });

  it('formats sizes in decimal units and the notification line', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(84_123_456), '84.1 MB');
    assert.equal(formatBytes(200_000_000), '200 MB');
    assert.equal(formatBytes(1_200_000_000), '1.2 GB');
    assert.equal(formatBytes(999_999), '1.0 MB');
    assert.equal(
      describeProgress({ bytes: 84_123_456, total: 200_000_000, percent: 42.7, bytesPerSecond: 31_200_000 }),
      '42% · 84.1 MB of 200 MB · 31.2 MB/s',
    );
    assert.equal(describeProgress({ bytes: 1500 }), '1.5 kB');
  });

  it('ends a finished transfer without "0 B/s", and still shows a stall before the end', () => {
    assert.equal(describeProgress({ bytes: 682, total: 682, percent: 100, bytesPerSecond: 0 }), '100% · 682 B of 682 B');
    assert.equal(describeProgress({ bytes: 682, total: 682, bytesPerSecond: 0 }), '682 B of 682 B');
    assert.equal(
      describeProgress({ bytes: 200_000_000, total: 200_000_000, percent: 100, bytesPerSecond: 31_200_000 }),
      '100% · 200 MB of 200 MB · 31.2 MB/s',
    );
    assert.equal(describeProgress({ bytes: 341, total: 682, percent: 50, bytesPerSecond: 0 }), '50% · 341 B of 682 B · 0 B/s');
  });

  it('measures the rate over the last seconds, so a stall shows', () => {
    let t = 0;
    const meter = new RateMeter(() => t, 3000);
    assert.equal(meter.sample(0), undefined);
    t = 1000;
    assert.equal(meter.sample(10_000_000), 10_000_000);
    t = 5000;
    meter.sample(10_000_000);
    t = 8000;
    assert.equal(meter.sample(10_000_000), 0, 'nothing moved in the last 3 s');
  });
});

describe('transfer: remote paths and listings', () => {
  it('checks a remote path: ~ made relative, a leading dash made ./-x, control characters refused', () => {
    assert.equal(checkRemotePath('  /root/data/ '), '/root/data');
    assert.equal(checkRemotePath('~/data'), 'data');
    assert.equal(checkRemotePath('~'), '.');
    assert.equal(checkRemotePath('-rf'), './-rf');
    // rsync reads `alias::path` as its daemon syntax ("error starting client-server protocol").
    assert.equal(checkRemotePath(':data'), './:data');
    assert.deepEqual(rsyncDownloadArgv(target, checkRemotePath('::x'), '/tmp/p').slice(-2), ['gpu-rental-7:./::x', '/tmp/p/']);
    assert.equal(checkRemotePath('/'), '/');
    assert.throws(() => checkRemotePath('/root/a\nb'), UnusableRemotePath);
    assert.throws(() => checkRemotePath('/root/\u0007'), UnusableRemotePath);
    assert.throws(() => checkRemotePath('   '), UnusableRemotePath);
    assert.equal(remoteParent('/root/data'), '/root');
    assert.equal(remoteParent('/data'), '/');
    assert.equal(remoteParent('data'), '.');
    assert.equal(remoteBaseName('/root/data'), 'data');
    assert.equal(remoteBaseName('/'), 'instance-root');
  });

  it('decodes ls -b names: spaces, backslashes, unicode bytes; refuses newlines and bytes that are not UTF-8', () => {
    assert.equal(decodeLsName('a\\ b'), 'a b');
    assert.equal(decodeLsName('back\\\\slash'), 'back\\slash');
    assert.equal(decodeLsName('\\303\\251\\ \\303\\274'), 'é ü');
    assert.equal(decodeLsName('-dash'), '-dash');
    assert.equal(decodeLsName("it's"), "it's");
    assert.equal(decodeLsName('new\\nline'), undefined);
    assert.equal(decodeLsName('bad\\377'), undefined);
  });

  it('parses a listing after its marker, folders first, refused names counted', () => {
    const out = 'Welcome banner\n--gpu-rental-listing--\n/root/x y\n-dash\na\\ b\ndir\\ x/\nnew\\nline\n\\303\\251/\n';
    const listing = parseListing(out);
    assert.equal(listing.path, '/root/x y');
    assert.deepEqual(listing.entries, [
      { name: 'dir x', folder: true },
      { name: 'é', folder: true },
      { name: '-dash', folder: false },
      { name: 'a b', folder: false },
    ]);
    assert.equal(listing.refused, 1);
  });

  it('parses the probe and df', () => {
    assert.deepEqual(parseProbe('motd\n--gpu-rental-listing--\nkind=folder\nsize=1234\nhas=gzip\n'), {
      kind: 'folder',
      size: 1234,
      rsync: false,
      gzip: true,
    });
    assert.deepEqual(parseProbe('--gpu-rental-listing--\nkind=missing\nsize=\nhas=rsync\nhas=gzip\n'), {
      kind: 'missing',
      rsync: true,
      gzip: true,
    });
    assert.deepEqual(parseDiskFree('tmpfs 8388608 8388600 8 100% /root\n'), { total: 8_589_934_592, used: 8_589_926_400, free: 8192 });
  });
});

describe('transfer: command lines', () => {
  it('quotes the ssh words for rsync -e, whose parser doubles quotes and knows no backslash', () => {
    assert.equal(rsyncShellWord('plain-word'), 'plain-word');
    assert.equal(rsyncShellWord("/home/o'neil/my ssh/config"), "'/home/o''neil/my ssh/config'");
  });

  it('builds the upload: protected args, mkdir -p of a quoted folder, excludes then .gitignore, contents to the alias', () => {
    const argv = rsyncUploadArgv(target, {
      localDir: '/work/my proj/',
      remoteDir: "/root/it's",
      excludes: ['.git/', ' ', 'a\nb', 'node_modules/'],
    });
    assert.ok(argv.includes('--protect-args'));
    assert.ok(argv.includes('--partial') && argv.includes('--info=progress2') && argv.includes('--no-inc-recursive'));
    const e = argv[argv.indexOf('-e') + 1]!;
    assert.match(e, /^ssh -F '\/home\/o''neil\/my ssh\/config' -o BatchMode=yes /);
    assert.ok(!e.includes('gpu-rental-7'), 'the alias comes from the path');
    assert.ok(argv.includes(`--rsync-path=mkdir -p -- '/root/it'\\''s' && rsync`));
    assert.deepEqual(argv.slice(-3), ['--', '/work/my proj/', "gpu-rental-7:/root/it's/"]);
    assert.deepEqual(
      argv.filter((a) => a.startsWith('--exclude') || a.startsWith('--filter')),
      ['--exclude=.git/', '--exclude=node_modules/', '--filter=:- .gitignore'],
    );
    assert.deepEqual(excludeArgs([' x ']), ['--exclude=x']);
  });

  it('builds the download and the tar pipes with every remote path quoted', () => {
    assert.deepEqual(rsyncDownloadArgv(target, './-x', '/tmp/.x.partial').slice(-3), ['--', 'gpu-rental-7:./-x', '/tmp/.x.partial/']);
    assert.equal(tarUnpackRemoteCommand('/root/a b', true), "mkdir -p -- '/root/a b' && tar -xzf - -C '/root/a b'");
    assert.equal(
      tarPackRemoteCommand('/root', "it's", false),
      "cd -- /root && printf '%s\\n' GPU-RENTAL-DATA-8d1f2c && tar -cf - -- 'it'\\''s'",
      'the data follows a marker line, so a banner the remote shell prints first is skipped',
    );
    // The large files sftp fetches are left out of the remote tar, their wildcards escaped so each names one file.
    assert.equal(
      tarPackRemoteCommand('.', 'data', false, ['data/big [1].bin', "data/it's*"]),
      "cd -- . && printf '%s\\n' GPU-RENTAL-DATA-8d1f2c && tar -cf - '--exclude=data/big \\[1].bin' '--exclude=data/it'\\''s\\*' -- data",
    );
  });
});

describe('transfer: what a failure says', () => {
  const base = { tool: 'rsync' as const, remotePath: '/root/proj', partialWhere: '/root/proj on the instance' };

  it('a full remote disk, with its figures', () => {
    const r = classifyFailure({
      ...base,
      direction: 'upload',
      code: 11,
      stderr: 'rsync: [receiver] write failed on "/root/proj/big": No space left on device (28)\nrsync error: error in file IO (code 11)',
    });
    assert.equal(r.fault, 'remoteDiskFull');
    assert.match(
      withDiskFigures(r.message, { total: 8e9, used: 7.5e9, free: 1e7 }),
      /disk is full \(7\.5 GB of 8\.0 GB used, 10\.0 MB free\).*bigger disk/,
    );
  });

  it('a full local disk on a download', () => {
    const r = classifyFailure({
      ...base,
      direction: 'download',
      code: 11,
      stderr: 'rsync: [receiver] write failed on "/tmp/x": No space left on device (28)',
    });
    assert.equal(r.fault, 'localDiskFull');
  });

  it('a missing remote path', () => {
    const r = classifyFailure({
      ...base,
      direction: 'download',
      code: 23,
      stderr: 'rsync: [sender] link_stat "/root/proj" failed: No such file or directory (2)',
    });
    assert.equal(r.fault, 'remoteMissing');
    assert.match(r.message, /\/root\/proj does not exist on the instance/);
  });

  it('a dropped connection says partial and that Retry resumes', () => {
    const r = classifyFailure({
      ...base,
      direction: 'upload',
      code: 12,
      stderr:
        'rsync: connection unexpectedly closed (1234 bytes received so far) [sender]\nrsync error: error in rsync protocol data stream (code 12)',
    });
    assert.equal(r.fault, 'connection');
    assert.match(r.message, /partial.*\/root\/proj on the instance.*Retry/s);
    assert.equal(
      classifyFailure({
        ...base,
        tool: 'ssh',
        direction: 'download',
        code: 255,
        stderr: 'ssh: connect to host 1.2.3.4 port 22: Connection refused',
      }).fault,
      'connection',
    );
  });

  it('an unwritable local folder on a download, an unwritable remote one on an upload', () => {
    assert.equal(
      classifyFailure({
        ...base,
        direction: 'download',
        code: 23,
        stderr: 'rsync: [receiver] mkstemp "/ro/.x" failed: Read-only file system (30)',
      }).fault,
      'localNotWritable',
    );
    assert.equal(
      classifyFailure({
        ...base,
        direction: 'upload',
        code: 23,
        stderr: 'rsync: [receiver] mkstemp "/sys/.x" failed: Permission denied (13)',
      }).fault,
      'remoteNotWritable',
    );
    assert.equal(
      classifyFailure({
        ...base,
        tool: 'tar',
        direction: 'download',
        code: 2,
        stderr: 'tar: x: Cannot open: Read-only file system',
        localStderr: 'tar: x: Cannot open: Read-only file system',
      }).fault,
      'localNotWritable',
    );
  });

  it('anything else quotes the last line', () => {
    const r = classifyFailure({ ...base, direction: 'upload', code: 5, stderr: 'Warning: Permanently added x\nsomething odd happened\n' });
    assert.equal(r.fault, 'other');
    assert.match(r.message, /something odd happened/);
  });
});

describe('transfer: excludes for a tar upload outside git', () => {
  it('reads patterns as rsync and git do: any depth, folders only, anchored, negated, **', () => {
    const rules = ignoreRules(['node_modules/', '*.pyc', '/build', 'docs/*.md', '!keep.pyc', 'a/**/z', '# comment', '']);
    assert.equal(isIgnored('node_modules', true, rules), true);
    assert.equal(isIgnored('src/node_modules', true, rules), true);
    assert.equal(isIgnored('node_modules', false, rules), false, 'a file named so is kept');
    assert.equal(isIgnored('x/y.pyc', false, rules), true);
    assert.equal(isIgnored('x/keep.pyc', false, rules), false, 'the later ! keeps it');
    assert.equal(isIgnored('build', true, rules), true);
    assert.equal(isIgnored('src/build', true, rules), false, 'a leading / anchors');
    assert.equal(isIgnored('docs/a.md', false, rules), true);
    assert.equal(isIgnored('docs/sub/a.md', false, rules), false);
    assert.equal(isIgnored('a/b/c/z', false, rules), true);
    assert.equal(isIgnoredWithFolders('src/node_modules/dep/index.js', rules), true, 'through its folder');
    const nested = ignoreRules(['out/'], 'pkg');
    assert.equal(isIgnored('pkg/out', true, nested), true);
    assert.equal(isIgnored('out', true, nested), false, 'a nested .gitignore applies below its folder only');
  });

  it("reads a class in brackets as git does: GitHub's Python .gitignore line *.py[cod]", () => {
    const rules = ignoreRules(['*.py[cod]']);
    for (const f of ['a.pyc', 'b.pyo', 'c.pyd', 'src/e.pyc']) assert.equal(isIgnored(f, false, rules), true, f);
    for (const f of ['d.py', 'f.pyx', 'A.PYC']) assert.equal(isIgnored(f, false, rules), false, f);
  });
});

describe('transfer: an instance without rsync, told apart from other failures', () => {
  it("knows the shells' words for a missing or unrunnable rsync", () => {
    assert.equal(
      remoteLacksRsync('bash: line 1: rsync: command not found\nrsync: connection unexpectedly closed (0 bytes received so far) [sender]'),
      true,
    );
    assert.equal(remoteLacksRsync('sh: 1: rsync: not found'), true);
    assert.equal(remoteLacksRsync('bash: line 1: /usr/bin/rsync: Permission denied'), true);
    assert.equal(remoteLacksRsync('rsync: connection unexpectedly closed (0 bytes received so far) [sender]'), false);
    assert.equal(remoteLacksRsync('rsync: [receiver] mkstemp "/x" failed: Permission denied (13)'), false);
  });
});
