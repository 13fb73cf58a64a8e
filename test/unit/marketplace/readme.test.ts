import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteDef } from '../../marketplace/router';
import { ROUTES } from '../../marketplace/server';

const ROOT = join(__dirname, '..', '..', 'marketplace');

interface Row {
  method: string;
  path: string;
  file: string;
  scope: string;
  what: string;
}

/** The rows of the route index table in test/marketplace/README.md. */
function indexRows(): Row[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = text.split(/^## Route index$/m)[1];
  assert.ok(section, 'README.md has a "## Route index" section');
  return section
    .split('\n')
    .filter((line) => /^\| (GET|POST|PUT|DELETE) \|/.test(line))
    .map((line) => {
      const [method, path, file, scope, what] = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()) as [string, string, string, string, string];
      return { method, path, file, scope, what };
    });
}

/** Every route array exported by a file of routes/, read from the files themselves. */
async function routesByFile(): Promise<Array<{ file: string; route: RouteDef }>> {
  const found: Array<{ file: string; route: RouteDef }> = [];
  for (const name of readdirSync(join(ROOT, 'routes'))
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const mod = (await import(join(ROOT, 'routes', name))) as Record<string, unknown>;
    for (const [exported, value] of Object.entries(mod)) {
      if (!exported.endsWith('Routes') || !Array.isArray(value)) continue;
      for (const route of value as RouteDef[]) found.push({ file: `routes/${name}`, route });
    }
  }
  return found;
}

const id = (method: string, path: string) => `${method} ${path}`;

describe('marketplace: README route index', () => {
  it('has one line for every route served, with its file and scope, and no other', async () => {
    const defined = await routesByFile();
    const served = new Set(ROUTES.map((r) => id(r.method, r.path)));
    const fromFiles = new Set(defined.map((d) => id(d.route.method, d.route.path)));
    assert.deepEqual(
      [...served].filter((r) => !fromFiles.has(r)),
      [],
      'routes served that no file of routes/ exports',
    );
    assert.deepEqual(
      [...fromFiles].filter((r) => !served.has(r)),
      [],
      'routes a file exports that server.ts does not register',
    );

    const rows = indexRows();
    const listed = new Map(rows.map((r) => [id(r.method, r.path), r]));
    assert.equal(listed.size, rows.length, 'no route is listed twice');
    const missing = defined
      .filter((d) => !listed.has(id(d.route.method, d.route.path)))
      .map((d) => `${id(d.route.method, d.route.path)} (${d.file})`);
    assert.deepEqual(missing, [], 'routes missing from test/marketplace/README.md');
    assert.deepEqual(
      rows.filter((r) => !fromFiles.has(id(r.method, r.path))).map((r) => id(r.method, r.path)),
      [],
      'README lines for routes that do not exist',
    );
    for (const { file, route } of defined) {
      const row = listed.get(id(route.method, route.path))!;
      assert.equal(row.file, file, `${id(route.method, route.path)}: file`);
      assert.equal(row.scope, route.category ?? 'none', `${id(route.method, route.path)}: scope`);
      assert.ok(row.what.length > 10, `${id(route.method, route.path)}: says what it does`);
    }
  });
});
