// The idle watchdog reads the GPU's use from nvidia-smi. Its line runs here against what a real
// nvidia-smi printed (test/fixtures/nvidia-smi/, captured on an H100 with capture.sh), given only
// for the exact query the watchdog makes, so a change of query or of reading fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchdogScript } from '../../../src/core/idle/watchdog';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'nvidia-smi');
const QUERY = '--query-gpu=utilization.gpu --format=csv,noheader,nounits';

/** The watchdog's GPU line, run with an nvidia-smi that prints `output` for the watchdog's query (and fails otherwise). */
function gpuUse(output: string): string {
  const script = watchdogScript({ baseUrl: 'https://console.vast.ai', idleMinutes: 30, gpuThreshold: 5 });
  const line = script.split('\n').find((l) => l.includes('nvidia-smi'));
  assert.ok(line, 'the watchdog reads nvidia-smi');
  const bin = mkdtempSync(join(tmpdir(), 'gpu-rental-smi-'));
  try {
    writeFileSync(join(bin, 'out.txt'), output);
    writeFileSync(
      join(bin, 'nvidia-smi'),
      `#!/bin/bash\n[ "$*" = ${JSON.stringify(QUERY)} ] || { echo "unexpected query: $*" >&2; exit 2; }\ncat ${JSON.stringify(join(bin, 'out.txt'))}\n`,
    );
    chmodSync(join(bin, 'nvidia-smi'), 0o755);
    const run = spawnSync('bash', ['-c', `${line.trim()}\nprintf %s "$g"`], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout;
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

describe("idle watchdog: a real nvidia-smi's utilisation", () => {
  it('reads 0 from an idle H100 as the real tool prints it', () => {
    const real = readFileSync(join(FIXTURES, 'utilization.txt'), 'utf8');
    assert.equal(real, '0\n', 'the fixture is what the H100 printed');
    assert.equal(gpuUse(real), '0');
  });

  it('takes the busiest GPU of several, one line each in the same format', () => {
    assert.equal(gpuUse('0\n87\n3\n'), '87');
  });

  it('reads no GPU (no output, or the error the tool prints) as 0, never as busy', () => {
    assert.equal(gpuUse(''), '0');
    assert.equal(gpuUse(readFileSync(join(FIXTURES, 'query-bad-field.txt'), 'utf8')), '0');
  });
});
