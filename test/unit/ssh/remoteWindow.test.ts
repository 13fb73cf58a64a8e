import assert from 'node:assert/strict';
import { parseHostAlias } from '../../../src/core/ssh/config';
import { aliasOfRemoteAuthority } from '../../../src/core/ssh/remoteWindow';

describe('ssh: which host a Remote-SSH window is on', () => {
  it('reads the alias of a folder opened by Connect', () => {
    assert.equal(aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+gpu-rental-12'), 'gpu-rental-12');
    assert.equal(parseHostAlias(aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+gpu-rental-12'))?.instanceId, 12);
  });

  it('decodes a URL-encoded host', () => {
    assert.equal(aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+gpu%2Drental%2D12'), 'gpu-rental-12');
    assert.equal(aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+root%40gpu-rental-7'), 'root@gpu-rental-7');
    assert.equal(aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+bad%E0%A4%A'), undefined, 'malformed escapes are no host');
  });

  it("reads a profile's alias", () => {
    const alias = aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+gpu-rental-work-34');
    assert.equal(alias, 'gpu-rental-work-34');
    assert.deepEqual(parseHostAlias(alias), { instanceId: 34, profile: 'work' });
  });

  it("reads Remote-SSH's hex form of a host", () => {
    const hex = Buffer.from(JSON.stringify({ hostName: 'gpu-rental-56' })).toString('hex');
    assert.equal(aliasOfRemoteAuthority('ssh-remote', `ssh-remote+${hex}`), 'gpu-rental-56');
    assert.equal(aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+7bad'), '7bad', 'hex digits that are not JSON stay a name');
  });

  it('reads the authority of a workspace file on the instance (vscode-remote://ssh-remote+.../x.code-workspace)', () => {
    const file = new URL('vscode-remote://ssh-remote+gpu-rental-12/root/project.code-workspace');
    assert.equal(aliasOfRemoteAuthority('ssh-remote', file.host), 'gpu-rental-12');
    // An untitled workspace has no authority: the caller then tries the folders.
    assert.equal(aliasOfRemoteAuthority('ssh-remote', ''), undefined);
  });

  it('is undefined for local windows and other remotes', () => {
    assert.equal(aliasOfRemoteAuthority(undefined, ''), undefined);
    assert.equal(aliasOfRemoteAuthority(undefined, 'ssh-remote+gpu-rental-12'), undefined, 'a local window');
    assert.equal(aliasOfRemoteAuthority('wsl', 'wsl+Ubuntu'), undefined);
    assert.equal(aliasOfRemoteAuthority('dev-container', 'dev-container+abc'), undefined);
    assert.equal(aliasOfRemoteAuthority('ssh-remote', 'wsl+Ubuntu'), undefined, 'a folder of another remote');
    assert.equal(aliasOfRemoteAuthority('ssh-remote', 'ssh-remote+'), undefined);
  });
});
