import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');
const CORE = join(ROOT, 'src', 'core');

/**
 * src/core's units from the ground up, as ARCHITECTURE.md's "The module graph" states them. A unit
 * is a folder of src/core (an area) or one of its top-level files. A file imports files of its own
 * unit and of the floors below; never a unit beside it on its floor, nor one above.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['l10n', 'log', 'events', 'ids', 'format', 'text', 'prompts', 'progress', 'notice', 'shell', 'scale'],
  ['numbers', 'settings', 'links'],
  ['api'],
  ['state'],
  ['session'],
  ['instances', 'notify'],
  ['ssh'],
  ['billing', 'browserWorkspace', 'contracts', 'health', 'idle', 'jobs', 'jupyter', 'transfer', 'walkthrough'],
  ['account', 'offers'],
  ['rent'],
  ['stored', 'agent'],
];

const floorOf = new Map(FLOORS.flatMap((units, floor) => units.map((unit) => [unit, floor] as const)));

/** Every relative module a file names: imports and `import type`, `export … from`, `import()` and `require()`. */
function specifiers(source: string): string[] {
  return (
    ts
      .preProcessFile(source, true, true)
      .importedFiles.map((f) => f.fileName)
      // A script asset (a .sh or .py file, imported as text) imports nothing: no edge of the graph.
      .filter((name) => name.startsWith('.') && !/\.(sh|py)$/.test(name))
  );
}

/** Every module a file names, relative or not: what `specifiers` reads, and packages and node's modules. */
function allSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

/** The packages package.json names (dependencies and devDependencies). */
const PACKAGES: ReadonlySet<string> = (() => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
})();

/**
 * Why `specifier`, which `file` of src/core imports, leaves src/core; undefined when it names a
 * file of src/core, a node built-in or a package of package.json.
 */
function leavesCore(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    const base = resolve(ROOT, dirname(file), specifier);
    const target = repoPath([`${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c)) ?? base);
    return target.startsWith('src/core/') ? undefined : `resolves to ${target}, outside src/core`;
  }
  if (isBuiltin(specifier)) return undefined;
  const name = specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
  return PACKAGES.has(name) ? undefined : 'is neither a node built-in nor a package of package.json';
}

/** A path from the repository's root, with forward slashes on every system. */
function repoPath(path: string): string {
  return relative(ROOT, path).split(sep).join('/');
}

/** Every .ts file under `dir`, as paths relative to the repository. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [repoPath(path)] : [];
  });
}

/** The file a relative specifier names, as bundlers and tsc resolve it here (`x` → `x.ts`, or `x/index.ts`). */
function resolveSpecifier(from: string, specifier: string): string {
  const base = resolve(ROOT, dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return repoPath(candidate);
  }
  throw new Error(`${from} imports ${specifier}, which names no .ts file`);
}

/** The unit of a file of src/core: its folder under src/core, or its own name for a top-level file. */
function unitOf(file: string): string {
  const [first, ...rest] = file.slice('src/core/'.length).split('/');
  return rest.length > 0 ? first! : first!.replace(/\.ts$/, '');
}

/** src/core's files, each with the core files it imports. */
function coreGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(CORE).sort()) {
    const targets = specifiers(readFileSync(join(ROOT, file), 'utf8')).map((s) => resolveSpecifier(file, s));
    graph.set(file, [...new Set(targets.filter((t) => t.startsWith('src/core/')))]);
  }
  return graph;
}

/** Each circle of files (Tarjan's strongly connected components of two files or more, or a file importing itself), as one loop through it. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let top = stack.pop()!; ; top = stack.pop()!) {
      onStack.delete(top);
      component.push(top);
      if (top === file) break;
    }
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(loopThrough(graph, new Set(component)));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** One loop inside a strongly connected component, from its first file back to it, found breadth-first. */
function loopThrough(graph: Map<string, string[]>, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const loop = [file];
        for (let f = file; f !== start;) loop.unshift((f = from.get(f)!));
        return [...loop, start];
      }
      if (!from.has(next)) {
        from.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

describe('core graph', () => {
  const graph = coreGraph();

  it('reads every kind of import a file can make, and no string that only looks like one', () => {
    const source = [
      "import type { A } from './a';",
      "import { b } from '../b';",
      "export { c } from './c';",
      "export * from './d';",
      "const e = import('./e');",
      "type F = import('./f').F;",
      "import 'node:fs';",
      'const text = "from \'./not\'";',
    ].join('\n');
    assert.deepEqual(specifiers(source), ['./a', '../b', './c', './d', './e', './f']);
  });

  it('names an import that leaves src/core, import type included, and lets node and packages be', () => {
    const file = 'src/core/ssh/keyOffer.ts';
    const names = allSpecifiers("import type { Prompts } from '../../ui/pickers/prompts';\nimport { z } from 'zod';\nimport 'node:fs';");
    assert.deepEqual(
      names.map((name) => leavesCore(file, name)),
      ['resolves to src/ui/pickers/prompts.ts, outside src/core', undefined, undefined],
    );
    assert.equal(leavesCore(file, '../prompts'), undefined);
    assert.equal(leavesCore(file, 'vscode'), 'is neither a node built-in nor a package of package.json');
  });

  it('imports nothing outside src/core but node built-ins and packages', () => {
    const outside: string[] = [];
    for (const file of graph.keys()) {
      for (const name of allSpecifiers(readFileSync(join(ROOT, file), 'utf8'))) {
        const why = leavesCore(file, name);
        if (why) outside.push(`${file} imports '${name}', which ${why}`);
      }
    }
    assert.deepEqual(outside, [], `${outside.length} import(s) leave src/core`);
  });

  it('places every unit of src/core on a floor', () => {
    assert.ok(graph.size > 100, `read ${graph.size} files of src/core`);
    const units = [...new Set([...graph.keys()].map(unitOf))].sort();
    assert.deepEqual(
      units.filter((u) => !floorOf.has(u)),
      [],
      'add these to FLOORS here and to the order in ARCHITECTURE.md',
    );
    assert.deepEqual(
      [...floorOf.keys()].filter((u) => !units.includes(u)),
      [],
      'these units of FLOORS are no longer in src/core',
    );
  });

  it('imports only down: a unit of its own, or one on a lower floor', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = unitOf(file);
      for (const target of targets) {
        const to = unitOf(target);
        if (to === from || floorOf.get(to)! < floorOf.get(from)!) continue;
        const how = floorOf.get(to) === floorOf.get(from) ? 'beside it' : 'above it';
        upward.push(`${file} -> ${target} (${to} is ${how}: floor ${floorOf.get(to)! + 1}, ${from} on ${floorOf.get(from)! + 1})`);
      }
    }
    assert.deepEqual(upward, [], `${upward.length} import(s) against the order`);
  });

  it('has no circle of files', () => {
    const found = circles(graph).map((loop) => loop.join(' -> '));
    assert.deepEqual(found, [], `${found.length} circle(s)`);
  });

  it('is the order ARCHITECTURE.md states', () => {
    const text = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const stated = [...text.matchAll(/^\| (\d+) \| ((?:`[\w.]+\/?` ?)+) \|/gm)].map((m) => ({
      floor: Number(m[1]),
      units: m[2]!.match(/`[^`]+`/g)!.map((u) => u.slice(1, -1).replace(/\/$|\.ts$/, '')),
    }));
    assert.deepEqual(
      stated.map((row) => row.floor),
      FLOORS.map((_, i) => i + 1),
      'ARCHITECTURE.md numbers the floors 1, 2, …',
    );
    assert.deepEqual(
      stated.map((row) => row.units),
      FLOORS.map((units) => [...units]),
    );
  });
});
