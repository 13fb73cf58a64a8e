// Local files as the transfer tests compare them, and where a tool is installed.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** `size` bytes that do not compress, the same for one seed on every run. */
export function incompressible(seed: string, size: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < size; i++) blocks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, size);
}

/** Every file under `dir`, sorted: `<relative path> <sha256>`, then its mtime in whole seconds with `mtimes`. */
export async function fileTree(dir: string, o: { mtimes?: boolean } = {}, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await fileTree(dir, o, rel)));
    else {
      const digest = createHash('sha256')
        .update(await readFile(join(dir, rel)))
        .digest('hex');
      const mtime = o.mtimes ? ` ${Math.floor((await stat(join(dir, rel))).mtimeMs / 1000)}` : '';
      out.push(`${rel} ${digest}${mtime}`);
    }
  }
  return out.sort();
}

/** The installed path of a tool in the usual folders, or undefined. */
export function which(tool: string): string | undefined {
  for (const dir of ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']) if (existsSync(join(dir, tool))) return join(dir, tool);
  return undefined;
}
