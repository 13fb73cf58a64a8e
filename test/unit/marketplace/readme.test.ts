import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAULT_ALIASES, FAULT_KINDS } from '../../marketplace/faults';
import type { RouteDef } from '../../marketplace/router';
import { CONTROL_ROUTES } from '../../marketplace/routes/control';
import { ROUTES } from '../../marketplace/server';

const ROOT = join(__dirname, '..', '..', 'marketplace');

interface Row {
  method: string;
  path: string;
  file: string;
  scope: string;
  what: string;
}

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text under a heading of README.md, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const level = /^#+/.exec(heading)![0].length;
  const lines = README.split('\n');
  const start = lines.indexOf(heading);
  assert.ok(start >= 0, `README.md has a "${heading}" section`);
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}} `).test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The body rows of the first table in a section, as trimmed cells. */
function tableRows(heading: string): string[][] {
  const lines = section(heading).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  assert.ok(start >= 0, `"${heading}" has a table`);
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  // Past the header and its | --- | line.
  return lines.slice(start + 2, end < 0 ? undefined : end).map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim()),
  );
}

/** The rows of the route index table in test/marketplace/README.md. */
function indexRows(): Row[] {
  return tableRows('## Route index').map(([method = '', path = '', file = '', scope = '', what = '']) => ({
    method,
    path,
    file,
    scope,
    what,
  }));
}

/** What a README table lists and what the code has, compared both ways. */
function sameSet(listed: string[], real: readonly string[], what: string): void {
  assert.equal(new Set(listed).size, listed.length, `no ${what} is listed twice`);
  assert.deepEqual(
    real.filter((r) => !listed.includes(r)),
    [],
    `${what}s missing from test/marketplace/README.md`,
  );
  assert.deepEqual(
    listed.filter((l) => !real.includes(l)),
    [],
    `${what}s test/marketplace/README.md names that do not exist`,
  );
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

describe('marketplace: README fault vocabulary and control API', () => {
  it('describes every fault kind, with an example control call, and no other', () => {
    const rows = tableRows('## Fault vocabulary');
    sameSet(
      rows.map(([kind = '']) => kind),
      FAULT_KINDS,
      'fault kind',
    );
    for (const [kind = '', what = '', example = ''] of rows) {
      assert.ok(what.length > 10, `${kind}: says what it does`);
      assert.match(example, new RegExp(`^\`POST /__control/faults \\{.*"kind": "${kind}".*\\}\`$`), `${kind}: an example control call`);
      const body = /\{.*\}/.exec(example)![0];
      assert.doesNotThrow(() => JSON.parse(body) as unknown, `${kind}: the example body is JSON`);
    }
  });

  it('lists every fault alias with the kind it stands for', () => {
    const rows = tableRows('### Fault aliases');
    sameSet(
      rows.map(([alias = '']) => alias),
      Object.keys(FAULT_ALIASES),
      'fault alias',
    );
    for (const [alias = '', same = ''] of rows) {
      const { kind, status } = FAULT_ALIASES[alias]!;
      assert.equal(same, status === undefined ? kind : `${kind}, status ${status}`, `${alias}: what it stands for`);
    }
  });

  it('lists every control route, with what it does, and no other', () => {
    const rows = tableRows('## Control API');
    sameSet(
      rows.map(([method = '', path = '']) => id(method, path)),
      CONTROL_ROUTES.map((r) => id(r.method, r.path)),
      'control route',
    );
    for (const [method = '', path = '', what = ''] of rows) assert.ok(what.length > 10, `${id(method, path)}: says what it does`);
  });
});
