import assert from 'node:assert/strict';
import { build, type Metafile } from 'esbuild';

/**
 * What activating the extension evaluates. dist/extension.js, the activation chunk, holds only
 * what the first screen needs: the views' stand-in providers, the command stubs and the ids
 * (src/ui/shell/). Everything else is dist/main.js, loaded on first use; a module bundled into
 * both exists twice, so only modules without state or classes may be in both.
 * Inside dist/main.js, zod and the API client still wait for the first request (a user without a
 * key never evaluates them): evaluating zod alone costs about 11 ms.
 */
describe('activation path', function () {
  this.timeout(60_000);
  let shell: Metafile;
  let main: Metafile;

  const bundle = async (entry: string) =>
    (
      await build({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        external: ['vscode'],
        metafile: true,
        write: false,
        logLevel: 'silent',
        // As esbuild.mjs: the scripts sent to instances are imported as text.
        loader: { '.sh': 'text', '.py': 'text' },
      })
    ).metafile;

  before(async () => {
    [shell, main] = await Promise.all([bundle('src/extension.ts'), bundle('src/main.ts')]);
  });

  /** The modules the activation chunk may hold: the shell, and what both chunks may share. */
  const SHARED = ['src/core/ids.ts', 'src/ui/registry.ts'];
  const SHELL = ['src/extension.ts', 'src/ui/shell/shell.ts', 'src/ui/shell/gate.ts', 'src/ui/shell/proxyTree.ts', ...SHARED];

  /** The chain of imports from `entry` to `file`. */
  function chain(meta: Metafile, entry: string, file: string): string[] {
    const from = new Map<string, string | undefined>([[entry, undefined]]);
    const queue = [entry];
    while (queue.length > 0) {
      const f = queue.shift()!;
      if (f === file) {
        const path: string[] = [];
        for (let g: string | undefined = f; g !== undefined; g = from.get(g)) path.unshift(g);
        return path;
      }
      for (const i of meta.inputs[f]?.imports ?? []) {
        if (!from.has(i.path)) {
          from.set(i.path, f);
          queue.push(i.path);
        }
      }
    }
    return [];
  }

  it('the activation chunk holds only the shell: no view code, command body, client or zod', () => {
    const extra = Object.keys(shell.inputs).filter((f) => !SHELL.includes(f));
    assert.deepEqual(
      extra.map((f) => chain(shell, 'src/extension.ts', f).join(' -> ')),
      [],
      'modules the activation chunk reaches beyond src/ui/shell/',
    );
  });

  it('no module with state or classes is in both chunks', () => {
    const both = Object.keys(shell.inputs).filter((f) => main.inputs[f] !== undefined);
    assert.deepEqual(
      both.filter((f) => !SHARED.includes(f)),
      [],
    );
  });

  it('the rest holds the views, the commands, the client and zod', () => {
    for (const f of ['src/ui/services.ts', 'src/ui/commands/index.ts', 'src/core/api/client.ts', 'src/ui/views/instancesView.ts'])
      assert.ok(main.inputs[f], `${f} is in dist/main.js`);
    assert.ok(Object.keys(main.inputs).some((f) => f.includes('node_modules/zod/')));
  });

  /** The chain of static imports from src/main.ts to the first input `wanted` accepts, if any. */
  function eagerChain(wanted: (input: string) => boolean): string[] | undefined {
    const from = new Map<string, string | undefined>([['src/main.ts', undefined]]);
    const queue = ['src/main.ts'];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (wanted(file)) {
        const path: string[] = [];
        for (let f: string | undefined = file; f !== undefined; f = from.get(f)) path.unshift(f);
        return path;
      }
      for (const i of main.inputs[file]?.imports ?? []) {
        if (i.kind === 'import-statement' && !from.has(i.path)) {
          from.set(i.path, file);
          queue.push(i.path);
        }
      }
    }
    return undefined;
  }

  it('loading the rest does not evaluate zod: it waits for the first request', () => {
    const found = eagerChain((f) => f.includes('node_modules/zod/'));
    assert.equal(found, undefined, `a static import chain reaches zod: ${found?.join(' -> ')}`);
  });

  it('loading the rest does not evaluate the API client or its schemas', () => {
    const found = eagerChain((f) => f === 'src/core/api/client.ts' || f === 'src/core/api/fields.ts');
    assert.equal(found, undefined, `a static import chain reaches the client: ${found?.join(' -> ')}`);
  });
});
