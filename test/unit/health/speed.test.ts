// The health check's internet speed: what curl, wget and python3 print, read into a speed; the
// URL the script may fetch; and the verdict's words under and over half the offered speed.
import assert from 'node:assert/strict';
import { healthScript, readSpeed, speedTestUrl, type HealthReading } from '../../../src/core/health/probe';
import { readFailed, readOk } from '../../../src/core/health/smi';
import { judge } from '../../../src/core/health/verdict';

const mbits = (r: ReturnType<typeof readSpeed>) => (r.ok && r.value.kind === 'measured' ? Math.round(r.value.bitsPerSecond / 1e6) : r);

describe('health: internet speed', () => {
  it("reads curl's -w line, a run its time limit stopped included", () => {
    assert.equal(mbits(readSpeed({ text: 'curl 200 25000000 0.400', rc: 0 })), 500);
    assert.equal(mbits(readSpeed({ text: 'curl: (28) Operation timed out after 8000 milliseconds\ncurl 200 4000000 8.001', rc: 28 })), 4);
  });

  it("reads wget's bytes between the shell's two clock readings, and python3's line", () => {
    assert.equal(mbits(readSpeed({ text: 'wget 25000000 1700000000.250000 1700000002.250000', rc: 0 })), 100);
    assert.equal(mbits(readSpeed({ text: 'wget    12500000 1700000000.0 1700000001.0', rc: 0 })), 100);
    assert.equal(mbits(readSpeed({ text: 'python 200 25000000 0.200', rc: 0 })), 1000);
  });

  it('not measured, with why: unreachable, an HTTP error, no tool, too little data, an invalid URL', () => {
    const why = (r: ReturnType<typeof readSpeed>) => (r.ok ? r.value.kind : r.why);
    assert.equal(
      why(readSpeed({ text: 'curl: (6) Could not resolve host: nowhere.invalid\ncurl 000 0 0.01', rc: 6 })),
      'curl: (6) Could not resolve host: nowhere.invalid',
    );
    assert.equal(why(readSpeed({ text: 'curl 404 9 0.01', rc: 0 })), 'the server answered HTTP 404');
    assert.equal(
      why(readSpeed({ text: 'python error URLError: <urlopen error [Errno 111] Connection refused>', rc: 7 })),
      'URLError: <urlopen error [Errno 111] Connection refused>',
    );
    assert.equal(why(readSpeed({ text: 'no curl, wget or python3', rc: 127 })), 'the machine has no curl, wget or python3');
    assert.equal(why(readSpeed({ text: 'wget 512 1.0 1.1', rc: 0 })), 'only 512 bytes were downloaded');
    assert.equal(
      why(readSpeed({ text: 'gpu-rental: invalid speed test url', rc: 2 })),
      'the URL in gpuRental.health.speedTestUrl is not an http or https address',
    );
    assert.equal(why(readSpeed(undefined)), 'off');
  });

  it('fetches only an http(s) URL without credentials or shell characters, single-quoted', () => {
    assert.equal(speedTestUrl('https://speed.cloudflare.com/__down?bytes=25000000'), 'https://speed.cloudflare.com/__down?bytes=25000000');
    for (const bad of [
      "http://x/'; rm -rf ~; '",
      'http://x/a b',
      'file:///etc/passwd',
      'ftp://x/f',
      'https://user:key@x/f',
      'http://x/$(id)"',
      'not a url',
    ])
      assert.equal(speedTestUrl(bad), undefined, bad);
    const script = healthScript('n', { speedTestUrl: 'http://127.0.0.1:8080/blob?bytes=1&x=2' });
    assert.match(script, /--max-time 8 --max-filesize 25000000 -r 0-24999999 .* 'http:\/\/127\.0\.0\.1:8080\/blob\?bytes=1&x=2'/);
    assert.doesNotMatch(healthScript('n', { speedTestUrl: "http://x/'a" }), /http:\/\/x/, 'an invalid URL never reaches the script');
    assert.doesNotMatch(healthScript('n', { speedTestUrl: '' }), /curl|begin speed/, 'empty: no download');
  });

  it('the verdict says when the download is under half the offered speed, and not measured is only a note', () => {
    const base: HealthReading = {
      smiFound: true,
      gpus: readOk([{ index: 0, name: 'NVIDIA GeForce RTX 4090', memoryMiB: 24564 }]),
      version: readFailed('-'),
      p2p: readFailed('-'),
      topo: readFailed('-'),
      disk: readFailed('-'),
      write: readFailed('-'),
      speed: readOk({ kind: 'measured', bitsPerSecond: 300e6, bytes: 25e6, seconds: 0.67, tool: 'curl' }),
    };
    const offer = { gpu_name: 'RTX 4090', num_gpus: 1, inet_down: 800 };
    const slow = judge(base, offer);
    assert.ok(slow.matches, 'a slow line is not another machine');
    assert.deepEqual(
      slow.findings.map((f) => [f.level, f.code]),
      [['warning', 'inet']],
    );
    assert.match(slow.text, /It downloads at only 300 Mbit\/s, under half the 800 Mbit\/s offered/);
    const fine = judge(base, { ...offer, inet_down: 500 });
    assert.deepEqual(
      fine.findings.map((f) => [f.level, f.code]),
      [['note', 'inet']],
    );
    assert.match(fine.text, /It downloads at 300 Mbit\/s \(500 Mbit\/s offered\)\./);
    const unmeasured = judge({ ...base, speed: readFailed('the server answered HTTP 404') }, offer);
    assert.ok(unmeasured.matches);
    assert.match(unmeasured.text, /Internet speed: not measured \(the server answered HTTP 404\)\./);
  });
});
