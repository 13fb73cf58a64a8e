// The health check's readers against what a real nvidia-smi printed (test/fixtures/nvidia-smi/,
// driver 580 on one H100, captured with capture.sh there), and against multi-GPU variants in the same
// formats. The variants are HAND-MADE (marked so below): the capture had one GPU, so the extra rows
// and columns follow the captured header and row layout (tabs, the underlined header, " X " on
// topo -m's diagonal, "X" on P2P's).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { healthScript, readDd, readDf, readHealthOutput, splitSections } from '../../../src/core/health/probe';
import { GPU_FIELDS, linkKind, p2pOff, readGpuCsv, readGpuMatrix, readVersion } from '../../../src/core/health/smi';
import { judge } from '../../../src/core/health/verdict';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'nvidia-smi');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
/** The fields capture.sh asked for, in its order. */
const CAPTURED_FIELDS = /FIELDS=(\S+)/.exec(fixture('capture.sh'))![1]!.split(',');

// HAND-MADE: two GPUs in the captured layouts, P2P refused between them, linked through the host bridge.
const TOPO_2 =
  '\t\u001b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u001b[0m\nGPU0\t X \tPHB\t0-31\t0\t\tN/A\nGPU1\tPHB\t X \t0-31\t0\t\tN/A\n\nLegend:\n\n  X    = Self\n';
const P2P_2 = ' \t\u001b[4mGPU0\tGPU1\t\u001b[0m\n GPU0\tX\tNS\t\n GPU1\tNS\tX\t\n\nLegend:\n\n  X    = Self\n  OK   = Status Ok\n';
// HAND-MADE: four GPUs on NVLink with two NICs (real multi-GPU machines list NIC rows and columns too).
const TOPO_4_NICS = [
  '\t\u001b[4mGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u001b[0m',
  'GPU0\t X \tNV18\tNV18\tNV18\tPXB\tSYS\t0-47\t0\t\tN/A',
  'GPU1\tNV18\t X \tNV18\tNV18\tPXB\tSYS\t0-47\t0\t\tN/A',
  'GPU2\tNV18\tNV18\t X \tNV18\tSYS\tPXB\t48-95\t1\t\tN/A',
  'GPU3\tNV18\tNV18\tNV18\t X \tSYS\tPXB\t48-95\t1\t\tN/A',
  'NIC0\tPXB\tPXB\tSYS\tSYS\t X \tSYS',
  'NIC1\tSYS\tSYS\tPXB\tPXB\tSYS\t X ',
  '',
  'Legend:',
  '',
  'NIC Legend:',
  '',
  '  NIC0: mlx5_0',
].join('\n');

describe('health: nvidia-smi readers on the real output', () => {
  it('reads the GPU query of the real H100 (the capture asked more fields; they are picked by name)', () => {
    const read = readGpuCsv(fixture('query-csv-noheader-nounits.txt'), CAPTURED_FIELDS);
    assert.ok(read.ok, read.ok ? '' : read.why);
    assert.deepEqual(read.value, [
      {
        index: 0,
        name: 'NVIDIA H100 80GB HBM3',
        uuid: 'GPU-eb86bf1f-9c01-f408-1925-972118059531',
        busId: '00000000:00:06.0',
        memoryMiB: 81559,
        driver: '580.159.04',
        pcieGen: 5,
        pcieGenMax: 5,
        pcieWidth: 16,
        pcieWidthMax: 16,
        eccMode: 'Enabled',
        eccUncorrected: 0,
      },
    ]);
  });

  it('"[N/A]" and "[Not Supported]" are values (undefined), not errors', () => {
    const line = '0, NVIDIA GeForce RTX 4090, 24564, 575.57.08, [N/A], [Not Supported], 16, 16, [N/A], [N/A]';
    const read = readGpuCsv(line, GPU_FIELDS);
    assert.ok(read.ok);
    assert.equal(read.value[0]!.pcieGen, undefined);
    assert.equal(read.value[0]!.pcieGenMax, undefined);
    assert.equal(read.value[0]!.eccMode, undefined);
    assert.equal(read.value[0]!.eccUncorrected, undefined);
    assert.equal(read.value[0]!.memoryMiB, 24564);
  });

  it('a refused field (the real message), the header form, garbage and nothing: could not read', () => {
    assert.equal(readGpuCsv(fixture('query-bad-field.txt')).ok, false);
    // With a header and units the values do not read as numbers where numbers are wanted.
    assert.equal(readGpuCsv(fixture('query-csv.txt'), CAPTURED_FIELDS).ok, false);
    assert.equal(readGpuCsv('Segmentation fault\n').ok, false);
    assert.equal(readGpuCsv('').ok, false);
  });

  it('reads the driver and CUDA from --version, and from the banner of plain nvidia-smi', () => {
    assert.deepEqual(readVersion(fixture('version.txt')), { ok: true, value: { driver: '580.159.04', cuda: '13.0' } });
    assert.deepEqual(readVersion(fixture('default.txt')), { ok: true, value: { driver: '580.159.04', cuda: '13.0' } });
    assert.equal(readVersion('command not found').ok, false);
  });

  it('reads the real one-GPU matrices of topo -m and topo -p2p r, w and n (escape codes in the header)', () => {
    for (const name of ['topo-m.txt', 'topo-p2p-r.txt', 'topo-p2p-w.txt', 'topo-p2p-n.txt']) {
      assert.deepEqual(readGpuMatrix(fixture(name)), { ok: true, value: { gpus: [0], cells: [['X']] } }, name);
    }
  });

  it('hand-made two GPUs: P2P off between them, linked through the host bridge', () => {
    const p2p = readGpuMatrix(P2P_2);
    assert.ok(p2p.ok);
    assert.deepEqual(p2pOff(p2p.value), [{ a: 0, b: 1, status: 'NS' }]);
    const topo = readGpuMatrix(TOPO_2);
    assert.ok(topo.ok);
    assert.equal(linkKind(topo.value.cells[0]![1]!), 'PHB');
  });

  it('hand-made four GPUs with NICs: only GPU rows and columns are kept', () => {
    const topo = readGpuMatrix(TOPO_4_NICS);
    assert.ok(topo.ok, topo.ok ? '' : topo.why);
    assert.deepEqual(topo.value.gpus, [0, 1, 2, 3]);
    assert.ok(
      topo.value.cells.every((row, i) => row.length === 4 && row[i] === 'X' && row.every((c, j) => j === i || linkKind(c) === 'nvlink')),
    );
  });

  it('a matrix missing a cell, or not a matrix at all (the -q report): could not read', () => {
    assert.equal(readGpuMatrix(' \tGPU0\tGPU1\t\n GPU0\tX\t\n GPU1\tOK\tX\t\n').ok, false);
    assert.equal(readGpuMatrix(fixture('q.txt')).ok, false);
  });
});

/** The real H100 line with the values of our fields only, in our order (the capture asked more). */
function realRowInOurOrder(): string {
  const values = fixture('query-csv-noheader-nounits.txt').trim().split(', ');
  return GPU_FIELDS.map((f) => values[CAPTURED_FIELDS.indexOf(f)]).join(', ');
}

describe('health: the one script and its sections', () => {
  const NONCE = 'n0nce42';
  /** The script's output for these sections (text, exit status), as the script frames it. */
  const framed = (parts: Record<string, [string, number]>) =>
    Object.entries(parts)
      .map(([s, [text, rc]]) => `@@gpu-rental-health ${NONCE} begin ${s}\n${text}\n@@gpu-rental-health ${NONCE} end ${s} ${rc}`)
      .join('\n');

  it('runs every part under timeout and quotes the query', () => {
    const script = healthScript(NONCE);
    const lines = script.split('\n').filter((l) => /nvidia-smi|df -Pk|dd if=/.test(l));
    assert.ok(lines.length >= 6);
    for (const line of lines) assert.match(line, /timeout \d+ (nvidia-smi|df|dd)/, line);
    assert.match(script, / --query-gpu=index,name,memory\.total,[A-Za-z0-9_.,]* --format=csv,noheader,nounits/);
    assert.ok(!healthScript("x'; rm -rf /").includes('rm -rf /'), 'a nonce keeps only letters and digits');
  });

  it("splits the sections; a login banner outside them and another run's markers are left out", () => {
    const out = `Welcome!\n${framed({ gpus: [fixture('query-csv-noheader-nounits.txt').trim(), 0] })}\n@@gpu-rental-health other begin version\nx`;
    const sections = splitSections(out, NONCE);
    assert.deepEqual([...sections.keys()], ['gpus']);
    assert.equal(sections.get('gpus')!.rc, 0);
  });

  it('reads a whole run: the real captures, df and GNU dd', () => {
    const reading = readHealthOutput(
      framed({
        gpus: [realRowInOurOrder(), 0],
        version: [fixture('version.txt'), 0],
        p2p: [fixture('topo-p2p-r.txt'), 0],
        topo: [fixture('topo-m.txt'), 0],
        disk: [
          'Filesystem     1024-blocks     Used Available Capacity Mounted on\noverlay          52428800  1048576  51380224       2% /workspace',
          0,
        ],
        write: ['256+0 records in\n256+0 records out\n268435456 bytes (268 MB, 256 MiB) copied, 0.5 s, 537 MB/s', 0],
      }),
      NONCE,
    );
    assert.ok(reading.gpus.ok && reading.gpus.value[0]!.name === 'NVIDIA H100 80GB HBM3');
    assert.ok(reading.version.ok && reading.p2p.ok && reading.topo.ok);
    assert.deepEqual(reading.disk, { ok: true, value: { folder: '/workspace', sizeBytes: 52428800 * 1024, freeBytes: 51380224 * 1024 } });
    assert.deepEqual(reading.write, { ok: true, value: { kind: 'measured', bytesPerSecond: 268435456 / 0.5 } });
  });

  it('nvidia-smi missing (127), hung (124), no devices, a cut-off run: each part says it could not read, nothing throws', () => {
    const missing = readHealthOutput(
      framed({ gpus: ["timeout: failed to run command 'nvidia-smi': No such file or directory", 127] }),
      NONCE,
    );
    assert.equal(missing.smiFound, false);
    assert.equal(missing.gpus.ok, false);
    assert.equal(missing.disk.ok, false, 'the script did not get that far');
    const hung = readHealthOutput(framed({ gpus: ['', 124] }), NONCE);
    assert.ok(!hung.gpus.ok && /in time/.test(hung.gpus.why));
    const none = readHealthOutput(framed({ gpus: ['No devices were found', 6] }), NONCE);
    assert.deepEqual(none.gpus, { ok: true, value: [] });
    const garbage = readHealthOutput('\u0000\u001b[2J random bytes', NONCE);
    assert.equal(garbage.gpus.ok, false);
  });

  it('df and dd: busybox dd, a skipped and a timed-out write', () => {
    assert.deepEqual(readDd('268435456 bytes (256.0MB) copied, 2.000000 seconds, 128.0MB/s'), {
      ok: true,
      value: { kind: 'measured', bytesPerSecond: 268435456 / 2 },
    });
    assert.equal(readDf('df: /workspace: No such file or directory').ok, false);
    const skipped = readHealthOutput(framed({ write: ['skipped: 2048 KiB free', 3] }), NONCE);
    assert.deepEqual(skipped.write, { ok: true, value: { kind: 'skipped', freeBytes: 2048 * 1024 } });
    const slow = readHealthOutput(framed({ write: ['', 124] }), NONCE);
    assert.deepEqual(slow.write, { ok: true, value: { kind: 'tooSlow', bytes: 256 * 1024 * 1024 } });
  });
});

describe('health: the script as it ran on a real H100', () => {
  // test/fixtures/nvidia-smi/health-script.txt: healthScript('devicerun1') run with bash on the
  // machine the other fixtures came from (one H100 SXM, driver 580, CUDA 13.0), stdout kept whole.
  it('reads every section, and the H100 is the offered "H100 SXM"', () => {
    const reading = readHealthOutput(fixture('health-script.txt'), 'devicerun1');
    assert.ok(reading.gpus.ok && reading.version.ok && reading.p2p.ok && reading.topo.ok && reading.disk.ok && reading.write.ok);
    assert.equal(reading.gpus.value[0]!.name, 'NVIDIA H100 80GB HBM3');
    assert.equal(reading.write.value.kind, 'measured');
    const verdict = judge(reading, { gpu_name: 'H100 SXM', num_gpus: 1, gpu_ram: 81559, cuda_max_good: 12.8, pci_gen: 5, gpu_lanes: 16 });
    assert.equal(verdict.matches, true, verdict.text);
    assert.match(verdict.text, /^1× H100 SXM as offered\./);
    assert.equal(judge(reading, { gpu_name: 'A100 SXM4', num_gpus: 1 }).matches, false);
  });
});
