// The processes of this machine a test started and must have ended: those whose command line or
// working folder names a marker of the test's own (a config file, a temporary folder). Linux only
// (/proc); the suites that use it run where their tools exist.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Processes whose command line or working folder names `marker`, as "pid: command line". */
export function processesNaming(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // not ours to read
      }
      if (cmdline.includes(marker) || cwd.includes(marker)) found.push(`${pid}: ${cmdline.trim()}`);
    } catch {
      // ended meanwhile
    }
  }
  return found;
}
