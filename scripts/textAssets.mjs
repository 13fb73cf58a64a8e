// The extension's scripts for instances live beside the TypeScript that sends them, as *.sh and *.py
// files that the code imports as text (`import WRAPPER from './remote/wrapper.sh'`). The bundle gets
// them from esbuild's text loader (esbuild.mjs); TypeScript run unbundled (mocha, the tsx scripts)
// gets them from this file, loaded first: mocha's `require`, `tsx --import ./scripts/textAssets.mjs`.
//   CommonJS (what tsx makes of this package's .ts files): require() of a .sh or .py file returns its text.
//   ESM: an import of one gives a module whose default export is its text.
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const EXTENSIONS = ['.sh', '.py'];

// require.extensions is node's one table of loaders by extension, shared by every require().
const require = createRequire(import.meta.url);
for (const extension of EXTENSIONS) {
  require.extensions[extension] = (module, filename) => {
    module.exports = readFileSync(filename, 'utf8');
  };
}

// ESM: a load hook on the loader thread (module.register), beside tsx's own; a synchronous hook
// (module.registerHooks) cannot sit in front of tsx's asynchronous ones.
const hooks = `
  import { readFileSync } from 'node:fs';
  const EXTENSIONS = ${JSON.stringify(EXTENSIONS)};
  export async function load(url, context, nextLoad) {
    if (url.startsWith('file:') && EXTENSIONS.some((e) => new URL(url).pathname.endsWith(e)))
      return { format: 'module', source: 'export default ' + JSON.stringify(readFileSync(new URL(url), 'utf8')) + ';', shortCircuit: true };
    return nextLoad(url, context);
  }`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
