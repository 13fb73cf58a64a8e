// Every script the extension sends to an instance, checked statically: shellcheck (warnings and
// worse, in the dialect the script runs in) over all of them in one run, and py_compile over every
// Python body in one python3. Nothing here runs a script. The test also fails when a script asset
// or a builder exists that test/support/remoteScripts.ts does not generate.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as idleWatchdog from '../../src/core/idle/watchdog';
import * as healthProbe from '../../src/core/health/probe';
import * as clusterEnv from '../../src/core/jobs/cluster/env';
import * as clusterFanoutScripts from '../../src/core/jobs/cluster/fanoutScripts';
import * as clusterHostfile from '../../src/core/jobs/cluster/hostfile';
import * as clusterPreflightAllReduce from '../../src/core/jobs/cluster/preflightAllReduce';
import * as clusterPreflightScripts from '../../src/core/jobs/cluster/preflightScripts';
import * as clusterPresets from '../../src/core/jobs/cluster/presets';
import * as clusterRankScript from '../../src/core/jobs/cluster/rankScript';
import * as jobsLaunch from '../../src/core/jobs/launch';
import * as jobsOutbidVerify from '../../src/core/jobs/outbidVerify';
import * as jobsRemoteJobs from '../../src/core/jobs/remoteJobs';
import { LATEST_PLACEHOLDER } from '../../src/core/jobs/resumable';
import * as jobsResumeScripts from '../../src/core/jobs/resumeScripts';
import * as jobsScripts from '../../src/core/jobs/scripts';
import * as jupyterServers from '../../src/core/jupyter/servers';
import * as browserWorkspaceScripts from '../../src/core/browserWorkspace/scripts';
import * as shell from '../../src/core/shell';
import { shellQuote } from '../../src/core/shell';
import * as transferArgv from '../../src/core/transfer/argv';
import * as transferRemotePath from '../../src/core/transfer/remotePath';
import * as transferQuickCheck from '../../src/core/transfer/quickCheck';
import * as transferSftp from '../../src/core/transfer/sftp';
import { tempDirForSuite } from '../support';
import { generatedScripts, type GeneratedScript } from '../support/remoteScripts';
import { pyCompile, shellcheck } from '../support/staticChecks';

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** The modules that build scripts for instances, by the key the catalogue's `builder` names them with. */
const MODULES: Record<string, Record<string, unknown>> = {
  'idle/watchdog': idleWatchdog,
  'health/probe': healthProbe,
  'cluster/env': clusterEnv,
  'cluster/fanoutScripts': clusterFanoutScripts,
  'cluster/hostfile': clusterHostfile,
  'cluster/preflightAllReduce': clusterPreflightAllReduce,
  'cluster/preflightScripts': clusterPreflightScripts,
  'cluster/presets': clusterPresets,
  'cluster/rankScript': clusterRankScript,
  'jobs/launch': jobsLaunch,
  'jobs/outbidVerify': jobsOutbidVerify,
  'jobs/remoteJobs': jobsRemoteJobs,
  'jobs/resumeScripts': jobsResumeScripts,
  'jobs/scripts': jobsScripts,
  'jupyter/servers': jupyterServers,
  'browserWorkspace/scripts': browserWorkspaceScripts,
  shell,
  'transfer/argv': transferArgv,
  'transfer/remotePath': transferRemotePath,
  'transfer/quickCheck': transferQuickCheck,
  'transfer/sftp': transferSftp,
};

/** The source file of each module key. */
const FILES: Record<string, string> = Object.fromEntries(
  Object.keys(MODULES).map((key) => [key, `src/core/${key.startsWith('cluster/') ? `jobs/${key}` : key}.ts`]),
);

/** Exports whose names say "script" but that are not one (each with why). */
const NOT_SCRIPTS: Record<string, string> = {
  'cluster/hostfile.hostfileLines': "the hostfile's own text, which writeHostfileLines writes",
};

/** An export that builds a script: a function named …Script, …Lines or …Command, or a constant named …_COMMAND or …_FUNCTION(S). */
function isBuilder(name: string, value: unknown): boolean {
  if (typeof value === 'function') return /(Script|Lines|Command)$/.test(name);
  return typeof value === 'string' && /_(COMMAND|FUNCTIONS?)$/.test(name);
}

/** Every file under `dir` whose name ends in one of `extensions`, as paths from the repository. */
function filesUnder(dir: string, extensions: readonly string[]): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, extensions);
    return extensions.some((e) => entry.name.endsWith(e)) ? [relative(ROOT, path).split(sep).join('/')] : [];
  });
}

/** The text of every `python3 -c '…'` in a script: its single-quoted program, unquoted. */
function inlinePython(text: string): string[] {
  return [...text.matchAll(/python3 -c ('(?:[^']|'\\'')*')/g)].map((m) => m[1]!.slice(1, -1).replace(/'\\''/g, "'"));
}

interface Finding {
  file: string;
  line: number;
  column: number;
  level: string;
  code: number;
  message: string;
}

describe('remote scripts: every script sent to an instance passes shellcheck and py_compile', function () {
  this.timeout(120_000);
  const temp = tempDirForSuite('gpu-rental-remote-scripts-');
  const scripts: GeneratedScript[] = generatedScripts();

  it('names each script once', () => {
    const names = scripts.map((s) => s.name);
    assert.deepEqual(names, [...new Set(names)]);
  });

  it('shellcheck finds nothing at warning level or worse', () => {
    const offsets = new Map<string, { script: GeneratedScript; offset: number }>();
    const paths = scripts.map((script) => {
      const path = join(temp(), `${script.name}.${script.dialect}`);
      // A script without a shebang gets the dialect it runs in as a directive on a line of its own.
      const shebang = script.text.startsWith('#!');
      writeFileSync(path, shebang ? script.text : `# shellcheck shell=${script.dialect}\n${script.text}`);
      offsets.set(path, { script, offset: shebang ? 0 : 1 });
      return path;
    });
    const r = shellcheck(paths);
    assert.ok(!r.error, `shellcheck did not run (${String(r.error)}); install it: apt-get install shellcheck (scripts/setup.ts does)`);
    const comments = (JSON.parse(r.stdout || '{"comments":[]}') as { comments: Finding[] }).comments;
    const found = comments.map((c) => {
      const { script, offset } = offsets.get(c.file)!;
      const line = c.line - offset;
      const text = script.text.split('\n')[line - 1] ?? '';
      return `${script.name} (${script.builder}, ${script.dialect}) line ${line}:${c.column} SC${c.code} ${c.level}: ${c.message}\n    ${text.trim().slice(0, 200)}`;
    });
    assert.deepEqual(found, [], `shellcheck:\n${found.join('\n')}`);
    assert.equal(r.status, 0, r.stderr);
  });

  it('every Python body compiles', () => {
    const bodies = [
      ...filesUnder(SRC, ['.py']).map((file) => ({
        name: file.replace(/[^A-Za-z0-9.-]/g, '_'),
        text: readFileSync(join(ROOT, file), 'utf8'),
      })),
      ...scripts.flatMap((s) => inlinePython(s.text).map((text, i) => ({ name: `${s.name}-${i}`, text }))),
    ];
    // The wrapper's, the watchdog's, the interface address's and the torchrun check's, at least.
    assert.ok(bodies.length >= 7, `${bodies.length} Python bodies`);
    const paths = bodies.map((b) => {
      const path = join(temp(), `${b.name}.py`);
      writeFileSync(path, b.text);
      return path;
    });
    const r = pyCompile(paths);
    assert.ok(!r.error, `python3 did not run (${String(r.error)})`);
    assert.equal(r.status, 0, `py_compile:\n${r.stderr}${r.stdout}`);
  });

  it('generates from every script asset on disk', () => {
    const assets = filesUnder(SRC, ['.sh', '.py']);
    assert.ok(assets.length > 0);
    const all = scripts.map((s) => s.text);
    const missing = assets.filter((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      // The opening comment of an asset may be left out of what is sent (the start-up script's length is limited).
      const body = text.replace(/^(#(?!!).*\n)+/, '').trimEnd();
      return !all.some((s) => s.includes(body) || s.includes(shellQuote(text)));
    });
    assert.deepEqual(missing, [], 'script assets that no generated script contains: generate them in test/support/remoteScripts.ts');
  });

  it('calls every exported script builder', () => {
    const called = new Set(scripts.map((s) => s.builder));
    const builders = Object.entries(MODULES).flatMap(([key, module]) =>
      Object.entries(module)
        .filter(([name, value]) => isBuilder(name, value) && !NOT_SCRIPTS[`${key}.${name}`])
        .map(([name]) => `${key}.${name}`),
    );
    assert.ok(builders.length > 30, builders.join(' '));
    assert.deepEqual(
      builders.filter((b) => !called.has(b)),
      [],
      'builders test/support/remoteScripts.ts does not call',
    );
    // And each builder the catalogue names is an export of its module.
    const exported = (b: string) => {
      const [key, name] = b.split('.') as [string, string];
      return MODULES[key] !== undefined && name in MODULES[key]!;
    };
    assert.deepEqual(
      [...called].filter((b) => !exported(b)),
      [],
    );
  });

  it('knows every module that imports a script asset', () => {
    const importers = filesUnder(join(SRC, 'core'), ['.ts']).filter((file) =>
      /from '\.[^']*\.(sh|py)';/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    const known = new Set(Object.values(FILES));
    assert.deepEqual(
      importers.filter((f) => !known.has(f)),
      [],
      'modules that import a script asset: add them to MODULES and generate their scripts',
    );
  });

  it('keeps the constants the TypeScript shares with the assets', () => {
    assert.equal(jobsScripts.STOP_GRACE_SECONDS, 2);
    assert.equal(jobsResumeScripts.RESUME_HOOK_DELAY_SECONDS, 5);
    assert.match(jobsScripts.listScript(), new RegExp(`printf '${jobsScripts.STATUS_MARK}\\\\t`));
    assert.ok(jobsResumeScripts.resumeScript('a1').includes(`"${LATEST_PLACEHOLDER}"`));
  });
});
