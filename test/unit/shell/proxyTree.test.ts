import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { PLACEHOLDER, ProxyTreeProvider } from '../../../src/ui/shell/proxyTree';

/** Enough of vscode.EventEmitter for the stand-in. */
function emitter() {
  const listeners: ((e: unknown) => void)[] = [];
  const fired: unknown[] = [];
  const changed = {
    event: (listener: (e: unknown) => void) => {
      listeners.push(listener);
      return { dispose: () => undefined };
    },
    fire: (e: unknown) => {
      fired.push(e);
      for (const l of listeners) l(e);
    },
    dispose: () => undefined,
  } as unknown as vscode.EventEmitter<unknown>;
  return { changed, fired };
}

describe("the shell: a view's stand-in provider", () => {
  it('shows one row that says why when the rest could not load, trying again each time the view asks', () => {
    const { changed, fired } = emitter();
    let loads = 0;
    const provider = new ProxyTreeProvider(
      () => {
        loads++;
        return "Cannot find module '/ext/dist/main.js'";
      },
      { changed, placeholder: (detail) => ({ label: `could not load: ${detail}` }) as vscode.TreeItem },
    );
    for (let shown = 1; shown <= 3; shown++) {
      const rows = provider.getChildren(undefined) as unknown[];
      assert.deepEqual(rows, [PLACEHOLDER], `shown ${shown} times: one row, not an empty view`);
      assert.deepEqual(provider.getTreeItem(rows[0]), { label: "could not load: Cannot find module '/ext/dist/main.js'" });
      assert.deepEqual(provider.getChildren(PLACEHOLDER), []);
      assert.equal(provider.getParent(PLACEHOLDER), undefined);
    }
    assert.equal(loads, 3);

    // A later action loaded the rest: the view asks again, of the real provider.
    const real: vscode.TreeDataProvider<unknown> = { getTreeItem: (e) => ({ label: String(e) }), getChildren: () => ['a', 'b'] };
    provider.attach(real);
    assert.deepEqual(fired, [undefined], 'the row that said why is replaced');
    assert.deepEqual(provider.getChildren(undefined), ['a', 'b']);
    assert.deepEqual(provider.getTreeItem('a'), { label: 'a' });
    assert.equal(loads, 3);
  });

  it('loads the rest on first sight and answers from the real provider, with no row', () => {
    const { changed, fired } = emitter();
    const real: vscode.TreeDataProvider<unknown> = { getTreeItem: (e) => ({ label: String(e) }), getChildren: () => ['x'] };
    const provider: ProxyTreeProvider = new ProxyTreeProvider(
      () => {
        provider.attach(real);
        return undefined;
      },
      { changed, placeholder: () => assert.fail('no row when it loads') },
    );
    assert.deepEqual(provider.getChildren(undefined), ['x']);
    assert.deepEqual(fired, []);
  });
});
