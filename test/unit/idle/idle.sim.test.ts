import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Instance } from '../../../src/core/api/instances';
import { ONSTART_MAX_CHARS } from '../../../src/core/api/limits';
import { IdleTracker } from '../../../src/core/idle/idleTracker';
import { OnstartTooLong, hasWatchdog, watchdogScript, withWatchdog } from '../../../src/core/idle/watchdog';

const running = (id: number, gpu: number) =>
  ({ id, actual_status: 'running', intended_status: 'running', gpu_util: gpu }) as unknown as Instance;
const stopped = (id: number) => ({ id, actual_status: 'stopped', intended_status: 'stopped' }) as unknown as Instance;

describe('idle: the editor-side tracker', () => {
  const o = (nowMs: number) => ({ nowMs, idleMs: 1000, gpuThreshold: 5 });
  it('reports a running instance idle once nothing used it for the idle time', () => {
    const t = new IdleTracker();
    assert.deepEqual(t.update([running(1, 0)], new Set(), o(0)), [], 'first seen counts as used');
    assert.deepEqual(t.update([running(1, 3)], new Set(), o(999)), []);
    assert.deepEqual(t.update([running(1, 5)], new Set(), o(1000)), [1], 'at the threshold counts as idle');
  });

  it('a busy GPU or a connection counts as use', () => {
    const t = new IdleTracker();
    t.update([running(1, 0), running(2, 0)], new Set(), o(0));
    t.update([running(1, 50), running(2, 0)], new Set([2]), o(900));
    assert.deepEqual(t.update([running(1, 0), running(2, 0)], new Set(), o(1500)), []);
    assert.deepEqual(t.update([running(1, 0), running(2, 0)], new Set(), o(1900)), [1, 2]);
  });

  it('forgets an instance that stops, and touch (a cancelled countdown) restarts its clock', () => {
    const t = new IdleTracker();
    t.update([running(1, 0)], new Set(), o(0));
    assert.deepEqual(t.update([stopped(1)], new Set(), o(5000)), []);
    assert.deepEqual(t.update([running(1, 0)], new Set(), o(6000)), [], 'running again: a fresh start');
    t.touch(1, 6900);
    assert.deepEqual(t.update([running(1, 0)], new Set(), o(7500)), []);
    assert.deepEqual(t.update([running(1, 0)], new Set(), o(7900)), [1]);
  });
});

describe('idle: the watchdog script', () => {
  const options = { baseUrl: 'https://console.vast.ai/', idleMinutes: 30, gpuThreshold: 5 };
  it('is valid bash, small, and names its settings', () => {
    const script = watchdogScript(options);
    const dir = mkdtempSync(join(tmpdir(), 'gpu-rental-wd-'));
    writeFileSync(join(dir, 'onstart.sh'), script);
    execFileSync('bash', ['-n', join(dir, 'onstart.sh')]);
    // Most of the service's start-up script limit stays the user's.
    assert.ok(script.length < ONSTART_MAX_CHARS / 2, `${script.length} characters`);
    assert.match(script, /U=https:\/\/console\.vast\.ai N=1800 E=60 T=5/);
    // A URL with a character the shell acts on arrives single-quoted.
    assert.match(watchdogScript({ ...options, baseUrl: 'https://example.com/a&b=1' }), /U='https:\/\/example\.com\/a&b=1' N=/);
    assert.match(script, /CONTAINER_API_KEY/);
    assert.doesNotMatch(script, /log "[^"]*CONTAINER_API_KEY/, 'the key is never logged');
  });

  it("keeps the user's script, after the watchdog, byte for byte", () => {
    const mine = '#!/bin/bash\ncd /workspace && python train.py --epochs 3\n';
    const both = withWatchdog(mine, options);
    assert.ok(both.endsWith(mine));
    assert.ok(hasWatchdog(both));
    assert.equal(withWatchdog('', options), watchdogScript(options));
  });

  it('refuses, with both sizes, a script that would pass the service limit', () => {
    const long = 'x'.repeat(ONSTART_MAX_CHARS - 100);
    assert.throws(
      () => withWatchdog(long, options),
      (e: unknown) => e instanceof OnstartTooLong && /at most 4048/.test(e.message) && /turn idle stop off/.test(e.message),
    );
  });

  it('refuses an idle time that is not positive, or more than a week (bash would overflow and stop at once)', () => {
    assert.match(watchdogScript({ ...options, idleMinutes: 10_080 }), / N=604800 /);
    for (const idleMinutes of [1.6e17, 10_081, Number.POSITIVE_INFINITY, Number.NaN, 0, -1]) {
      assert.throws(() => watchdogScript({ ...options, idleMinutes }), /at most 10080 minutes/, String(idleMinutes));
    }
    assert.throws(() => watchdogScript({ ...options, checkSeconds: Number.NaN }), /cannot check every NaN seconds/);
    assert.throws(() => watchdogScript({ ...options, gpuThreshold: Number.NaN }), /not a GPU threshold/);
  });

  it('refuses a base URL that would break out of the quoting', () => {
    assert.throws(() => watchdogScript({ ...options, baseUrl: "https://x'; rm -rf /" }), /not a usable base URL/);
  });
});
