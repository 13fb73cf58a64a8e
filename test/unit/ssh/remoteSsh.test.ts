import assert from 'node:assert/strict';
import { REMOTE_SSH_EXTENSIONS, nativeRemoteSsh, pickRemoteSsh, remoteFolderUri } from '../../../src/core/ssh/remoteSsh';

const MS = 'ms-vscode-remote.remote-ssh';
const CURSOR = 'anysphere.remote-ssh';
const WINDSURF = 'codeium.windsurf-remote-openssh';
const OPEN = 'jeanp413.open-remote-ssh';
const ANTIGRAVITY = 'google.antigravity-remote-openssh';

/** Editors as `vscode.env.appName` and `vscode.env.uriScheme` name them, with the extension that belongs to each. */
const EDITORS: ReadonlyArray<{ appName: string; uriScheme: string; native: string }> = [
  { appName: 'Visual Studio Code', uriScheme: 'vscode', native: MS },
  { appName: 'Visual Studio Code - Insiders', uriScheme: 'vscode-insiders', native: MS },
  { appName: 'Cursor', uriScheme: 'cursor', native: CURSOR },
  { appName: 'Windsurf', uriScheme: 'windsurf', native: WINDSURF },
  { appName: 'VSCodium', uriScheme: 'vscodium', native: OPEN },
  { appName: 'Code - OSS', uriScheme: 'code-oss', native: OPEN },
  { appName: 'Antigravity', uriScheme: 'antigravity', native: ANTIGRAVITY },
];

describe('Remote-SSH extension choice', () => {
  it('knows the extension that belongs to each editor', () => {
    for (const e of EDITORS) assert.equal(nativeRemoteSsh(e.appName, e.uriScheme).id, e.native, e.appName);
    // Only the scheme may tell (a renamed build), and case does not matter.
    assert.equal(nativeRemoteSsh('Some Editor', 'CURSOR').id, CURSOR);
    assert.equal(nativeRemoteSsh('Unknown Fork', 'unknown').id, MS, 'anything else is treated as VS Code');
  });

  it("prefers the editor's own extension when it is installed, whatever else is", () => {
    const all = new Set(REMOTE_SSH_EXTENSIONS.map((e) => e.id));
    for (const e of EDITORS) assert.equal(pickRemoteSsh(all, e.appName, e.uriScheme)?.id, e.native, e.appName);
  });

  it("else takes the first installed in the list's order", () => {
    assert.equal(pickRemoteSsh(new Set([MS]), 'Cursor', 'cursor')?.id, MS);
    assert.equal(pickRemoteSsh(new Set([ANTIGRAVITY, OPEN, WINDSURF]), 'Visual Studio Code', 'vscode')?.id, WINDSURF);
    assert.equal(pickRemoteSsh(new Set([ANTIGRAVITY, OPEN]), 'Cursor', 'cursor')?.id, OPEN);
    assert.equal(pickRemoteSsh(new Set([ANTIGRAVITY]), 'VSCodium', 'vscodium')?.id, ANTIGRAVITY);
  });

  it('is undefined when none is installed; unrelated extensions do not count', () => {
    assert.equal(pickRemoteSsh(new Set(), 'Visual Studio Code', 'vscode'), undefined);
    assert.equal(pickRemoteSsh(new Set(['ms-python.python', 'ms-vscode-remote.remote-containers']), 'Cursor', 'cursor'), undefined);
  });

  it('compares extension ids without regard to case', () => {
    assert.equal(pickRemoteSsh(new Set(['MS-VSCode-Remote.Remote-SSH']), 'Visual Studio Code', 'vscode')?.id, MS);
    assert.equal(pickRemoteSsh(new Set(['Anysphere.Remote-SSH', 'ms-vscode-remote.remote-ssh']), 'Cursor', 'cursor')?.id, CURSOR);
    assert.equal(pickRemoteSsh(new Set(['JeanP413.Open-Remote-SSH']), 'Visual Studio Code', 'vscode')?.id, OPEN);
  });

  it('names the settings section each extension reads', () => {
    assert.equal(nativeRemoteSsh('Visual Studio Code', 'vscode').section, 'remote.SSH');
    assert.equal(nativeRemoteSsh('Windsurf', 'windsurf').section, 'remote.windsurfSSH');
    assert.equal(nativeRemoteSsh('Antigravity', 'antigravity').section, 'remote.antigravitySSH');
  });
});

describe('remote folder URI', () => {
  it('is vscode-remote://ssh-remote+<alias><folder>', () => {
    assert.equal(remoteFolderUri('gpu-rental-12', '/root'), 'vscode-remote://ssh-remote+gpu-rental-12/root');
    assert.equal(
      remoteFolderUri('gpu-rental-work-12', '/workspace/project'),
      'vscode-remote://ssh-remote+gpu-rental-work-12/workspace/project',
    );
  });

  it('adds the leading slash a folder lacks, and trims blanks', () => {
    assert.equal(remoteFolderUri('gpu-rental-12', 'root'), 'vscode-remote://ssh-remote+gpu-rental-12/root');
    assert.equal(remoteFolderUri('gpu-rental-12', '  /root  '), 'vscode-remote://ssh-remote+gpu-rental-12/root');
  });

  it('opens the root when no folder is given', () => {
    assert.equal(remoteFolderUri('gpu-rental-12', undefined), 'vscode-remote://ssh-remote+gpu-rental-12/');
    assert.equal(remoteFolderUri('gpu-rental-12', ''), 'vscode-remote://ssh-remote+gpu-rental-12/');
    assert.equal(remoteFolderUri('gpu-rental-12', '   '), 'vscode-remote://ssh-remote+gpu-rental-12/');
  });

  it('encodes spaces and other reserved characters in each segment, keeping the slashes', () => {
    assert.equal(remoteFolderUri('gpu-rental-12', '/root/my project'), 'vscode-remote://ssh-remote+gpu-rental-12/root/my%20project');
    assert.equal(remoteFolderUri('gpu-rental-12', '/data/a#b?c%d'), 'vscode-remote://ssh-remote+gpu-rental-12/data/a%23b%3Fc%25d');
  });

  it('refuses an alias that is not a plain lowercase host name', () => {
    for (const bad of ['', 'Gpu-Rental-12', 'gpu rental 12', '-gpu-rental-12', 'gpu-rental-12/root', 'host+x', 'a@b']) {
      assert.throws(() => remoteFolderUri(bad, '/root'), /is not a usable SSH alias/, JSON.stringify(bad));
    }
  });
});
