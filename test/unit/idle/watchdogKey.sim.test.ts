// The idle watchdog stops its instance with the instance's own key (CONTAINER_API_KEY). The key
// must never be on a command line, which ps and /proc/*/cmdline show to every process on the host,
// nor in the watchdog's log, even when the service's answer echoes the Authorization header back.
// Each client it can use (curl, else wget, else python3) is checked against a loopback server that
// holds the request while the test reads every process's command line.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withWatchdog } from '../../../src/core/idle/watchdog';
import { eventually } from '../../support';
import { echoServer, heldStopKeepsKeyHidden, onlyTools } from '../../support/keyProbe';

/** An instance key as the service might make one; nothing else on the machine holds it. */
const KEY = 'ik-4f7c2a9e61d84b0fa3c5e7d9b1f2a6c8';
/** What the watchdog itself uses besides its HTTP client. */
const TOOLS = ['bash', 'sleep', 'date', 'tr', 'grep', 'sort', 'tail', 'head', 'cat', 'sed', 'mktemp', 'rm'];

/**
 * Runs the watchdog as the start-up script does, in a PID namespace of its own where root may make
 * one: the watchdog counts SSH sessions through /proc, and another test's sessions on this machine
 * must not count as use. The shell waits for the watchdog, since the namespace ends with it.
 */
function startWatchdog(script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const own = ['--pid', '--fork', '--mount-proc'];
  const isolated = process.getuid?.() === 0 && spawnSync('/usr/bin/unshare', [...own, 'true'], { timeout: 5_000 }).status === 0;
  const argv = ['/bin/bash', '-c', `${script}wait\n`];
  return isolated
    ? spawn('/usr/bin/unshare', [...own, ...argv], { env, stdio: 'ignore', detached: true })
    : spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore', detached: true });
}

describe('idle: the watchdog keeps the instance key off command lines and out of its log', function () {
  this.timeout(60_000);

  for (const client of ['curl', 'wget', 'python3']) {
    it(`with ${client}: no command line holds the key while the stop request runs; the log has the HTTP status, not the echoed answer`, async function () {
      const bin = mkdtempSync(join(tmpdir(), `gpu-rental-wd-key-${client}-`));
      const home = mkdtempSync(join(tmpdir(), 'gpu-rental-wd-key-home-'));
      const temp = join(home, 'tmp');
      mkdirSync(temp);
      const server = await echoServer();
      let shell: ChildProcess | undefined;
      try {
        if (onlyTools(bin, [...TOOLS, client]).length > 0) this.skip();
        const script = withWatchdog(undefined, { baseUrl: server.url, idleMinutes: 1 / 60, gpuThreshold: 5, checkSeconds: 1 });
        shell = startWatchdog(script, { PATH: bin, HOME: home, TMPDIR: temp, CONTAINER_ID: '77', CONTAINER_API_KEY: KEY });

        const held = await heldStopKeepsKeyHidden(server, { key: KEY, client, temp });

        held.answer(200);
        const logFile = join(home, 'gpu-rental-idle.log');
        const log = await eventually(
          () => {
            const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
            return /the service answered HTTP 200\n/.test(text) ? text : undefined;
          },
          'the status in the log',
          10_000,
        );
        assert.ok(!log.includes(KEY), log);
        assert.doesNotMatch(log, /you sent|echo|Bearer/, 'nothing of the answer but its status');
        if (client === 'wget') assert.deepEqual(readdirSync(temp), [], 'the header file is removed');
      } finally {
        if (shell?.pid) {
          try {
            process.kill(-shell.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await server.close();
        rmSync(bin, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }
    });
  }
});
