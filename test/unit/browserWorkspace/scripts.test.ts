import assert from 'node:assert/strict';
import {
  installFailure,
  installScript,
  lastProgress,
  parseStart,
  startScript,
  stopScript,
} from '../../../src/core/browserWorkspace/scripts';

const HEX = 'c'.repeat(64);

describe('browser workspace: the scripts sent to an instance', () => {
  it('puts every parameter on the first line, quoted, and the password on no line', () => {
    const install = installScript({ url: "https://h/it's.tar.gz", sha256: HEX, folderName: 'code-server-1-linux-amd64' });
    assert.equal(
      install.split('\n')[0],
      `URL='https://h/it'\\''s.tar.gz' SHA=${HEX} FOLDER=code-server-1-linux-amd64 BASE=.local/share/gpu-rental/code-server`,
    );
    const start = startScript({ version: '4.139.1', cookieSuffix: 'gpu-rental-7' });
    assert.equal(start.split('\n')[0], 'VERSION=4.139.1 BASE=.local/share/gpu-rental/code-server SUFFIX=gpu-rental-7');
    assert.match(start, /umask 077/);
    assert.equal(stopScript().split('\n')[0], 'BASE=.local/share/gpu-rental/code-server');
  });

  it('refuses values that are not what they claim', () => {
    assert.throws(() => installScript({ url: 'https://h/x.tar.gz', sha256: 'nope', folderName: 'x' }), /not a sha256/);
    assert.throws(() => installScript({ url: 'https://h/x.tar.gz', sha256: HEX, folderName: '../up' }), /not a folder name/);
    assert.throws(() => startScript({ version: '1 2', cookieSuffix: 'x' }), /not a folder name/);
    assert.throws(() => startScript({ version: '1', cookieSuffix: 'a;b' }), /not a cookie suffix/);
  });

  it('reads start.sh’s answer, and nothing else the instance might print', () => {
    assert.deepEqual(parseStart('started 41234\npassword 0123456789abcdef0123\n'), {
      kind: 'server',
      reused: false,
      port: 41234,
      password: '0123456789abcdef0123',
    });
    assert.deepEqual(parseStart('motd line\nrunning 8080\npassword 0123456789abcdef0123\n'), {
      kind: 'server',
      reused: true,
      port: 8080,
      password: '0123456789abcdef0123',
    });
    assert.deepEqual(parseStart('missing aarch64\n'), { kind: 'missing', machine: 'aarch64' });
    assert.equal(parseStart('started 70000\npassword 0123456789abcdef0123\n'), undefined);
    assert.equal(parseStart('started 8080\npassword short\n'), undefined);
    assert.equal(parseStart('started 8080\n'), undefined);
    assert.equal(parseStart('<script>\n'), undefined);
  });

  it('reads the download’s progress and the install’s failure by exit code', () => {
    assert.equal(lastProgress('progress 10\nprogress 2048\nprog'), 2048);
    assert.equal(lastProgress('nothing yet'), undefined);
    assert.equal(installFailure(12), 'checksum');
    assert.equal(installFailure(13), 'noSpace');
    assert.equal(installFailure(10), 'noFetcher');
    assert.equal(installFailure(1), 'other');
  });
});
