import assert from 'node:assert/strict';
import { build, type Metafile } from 'esbuild';

/**
 * What activating the extension evaluates. esbuild evaluates a bundled module when the bundle
 * loads if any statically imported path reaches it; a module reached only through `require()`
 * waits until it is called. zod (the API client's schemas) and the client itself must wait for
 * the first request: evaluating zod alone costs about 11 ms of the 20 ms activation budget.
 */
describe('activation path', function () {
  this.timeout(60_000);
  let meta: Metafile;

  before(async () => {
    const result = await build({
      entryPoints: ['src/extension.ts'],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      external: ['vscode', './undici.js'],
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    meta = result.metafile;
  });

  /** The chain of static imports from src/extension.ts to the first input `wanted` accepts, if any. */
  function eagerChain(wanted: (input: string) => boolean): string[] | undefined {
    const from = new Map<string, string | undefined>([['src/extension.ts', undefined]]);
    const queue = ['src/extension.ts'];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (wanted(file)) {
        const chain: string[] = [];
        for (let f: string | undefined = file; f !== undefined; f = from.get(f)) chain.unshift(f);
        return chain;
      }
      for (const i of meta.inputs[file]?.imports ?? []) {
        if (i.kind === 'import-statement' && !from.has(i.path)) {
          from.set(i.path, file);
          queue.push(i.path);
        }
      }
    }
    return undefined;
  }

  it('the bundle still contains zod and the client, reached on the first request', () => {
    assert.ok(Object.keys(meta.inputs).some((f) => f.includes('node_modules/zod/')));
    assert.ok(meta.inputs['src/core/api/client.ts'], 'the client is bundled');
  });

  it('does not evaluate zod while activating', () => {
    const chain = eagerChain((f) => f.includes('node_modules/zod/'));
    assert.equal(chain, undefined, `a static import chain reaches zod: ${chain?.join(' -> ')}`);
  });

  it('does not evaluate the API client or its schemas while activating', () => {
    const chain = eagerChain((f) => f === 'src/core/api/client.ts' || f === 'src/core/api/fields.ts');
    assert.equal(chain, undefined, `a static import chain reaches the client: ${chain?.join(' -> ')}`);
  });
});
