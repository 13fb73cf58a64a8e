import assert from 'node:assert/strict';
import { CODE_SERVER_VERSION, parseChecksum, releaseArch, releaseFor, ReleaseError } from '../../../src/core/browserWorkspace/release';

const HEX = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

describe('browser workspace: the release an instance installs', () => {
  it('defaults to code-server’s pinned GitHub release for the instance’s architecture, its checksum from the release API', () => {
    const r = releaseFor({}, 'x86_64\n');
    assert.equal(r.arch, 'amd64');
    assert.equal(r.version, CODE_SERVER_VERSION);
    assert.equal(
      r.url,
      `https://github.com/coder/code-server/releases/download/v${CODE_SERVER_VERSION}/code-server-${CODE_SERVER_VERSION}-linux-amd64.tar.gz`,
    );
    assert.equal(r.fileName, `code-server-${CODE_SERVER_VERSION}-linux-amd64.tar.gz`);
    assert.equal(r.folderName, `code-server-${CODE_SERVER_VERSION}-linux-amd64`);
    assert.equal(r.checksumUrl, `https://api.github.com/repos/coder/code-server/releases/tags/v${CODE_SERVER_VERSION}`);
    assert.equal(r.pinnedSha256, undefined);
    assert.equal(releaseFor({}, 'aarch64').arch, 'arm64');
  });

  it('a mirror template gets its checksum beside the tarball unless a checksum URL or a pin is set', () => {
    const mirror = 'http://127.0.0.1:9/m/v${version}/code-server-${version}-linux-${arch}.tar.gz';
    const r = releaseFor({ downloadUrl: mirror, version: '4.100.0' }, 'arm64');
    assert.equal(r.url, 'http://127.0.0.1:9/m/v4.100.0/code-server-4.100.0-linux-arm64.tar.gz');
    assert.equal(r.checksumUrl, `${r.url}.sha256`);
    const own = releaseFor({ downloadUrl: mirror, checksumUrl: 'https://example.test/sums/${version}.txt' }, 'x86_64');
    assert.equal(own.checksumUrl, `https://example.test/sums/${CODE_SERVER_VERSION}.txt`);
    assert.equal(releaseFor({ sha256: { amd64: HEX.toUpperCase() } }, 'x86_64').pinnedSha256, HEX);
  });

  it('refuses what cannot be installed, each with what to do', () => {
    assert.throws(
      () => releaseFor({}, 'ppc64le'),
      (e: Error) => e instanceof ReleaseError && /ppc64le.*x86_64 and arm64/.test(e.message),
    );
    assert.throws(() => releaseFor({ version: '1.0; rm -rf /' }, 'x86_64'), /not a version/);
    assert.throws(() => releaseFor({ downloadUrl: 'ftp://h/x.tar.gz' }, 'x86_64'), /not an http or https URL/);
    assert.throws(() => releaseFor({ downloadUrl: 'https://h/$(id).tar.gz' }, 'x86_64'), /not an http or https URL/);
    assert.throws(() => releaseFor({ downloadUrl: 'https://user:pw@h/x.tar.gz' }, 'x86_64'), /without credentials/);
    assert.throws(() => releaseFor({ downloadUrl: 'https://h/x.zip' }, 'x86_64'), /\.tar\.gz/);
    assert.throws(() => releaseFor({ sha256: { amd64: 'abc' } }, 'x86_64'), /no sha256 .* for amd64/);
    assert.equal(releaseArch('riscv64'), undefined);
  });

  it('reads a digest from a GitHub release’s JSON: the named asset only', () => {
    const json = JSON.stringify({
      assets: [
        { name: 'code-server-1-linux-arm64.tar.gz', digest: `sha256:${OTHER}` },
        { name: 'code-server-1-linux-amd64.tar.gz', digest: `sha256:${HEX.toUpperCase()}` },
      ],
    });
    assert.equal(parseChecksum(json, 'code-server-1-linux-amd64.tar.gz'), HEX);
    assert.equal(parseChecksum(json, 'code-server-1-linux-riscv.tar.gz'), undefined);
    assert.equal(parseChecksum(JSON.stringify({ assets: [{ name: 'x.tar.gz', digest: 'md5:00' }] }), 'x.tar.gz'), undefined);
    assert.equal(parseChecksum('{ not json', 'x.tar.gz'), undefined);
  });

  it('reads sha256sum’s format: the line naming the file, or a lone digest, never another file’s', () => {
    const sums = `${OTHER}  code-server-1-linux-arm64.tar.gz\n${HEX} *dist/code-server-1-linux-amd64.tar.gz\n`;
    assert.equal(parseChecksum(sums, 'code-server-1-linux-amd64.tar.gz'), HEX);
    assert.equal(parseChecksum(`${HEX}\n`, 'anything.tar.gz'), HEX);
    assert.equal(parseChecksum(`${OTHER}  other.tar.gz\n`, 'x.tar.gz'), undefined);
    assert.equal(parseChecksum('<html>not found</html>', 'x.tar.gz'), undefined);
  });
});
