// The health verdict: what nvidia-smi, df and dd said, held against the offer. The GPU name rule
// (the service's short model against the driver's product name), the VRAM tolerance, and which
// findings make a machine "not what was offered" (the check then offers to destroy it).
import assert from 'node:assert/strict';
import { sameGpuModel } from '../../../src/core/health/gpuModel';
import type { HealthReading } from '../../../src/core/health/probe';
import { readFailed, readOk, type GpuMatrix, type GpuRow } from '../../../src/core/health/smi';
import { judge, type Offered } from '../../../src/core/health/verdict';

describe('health: is it the offered GPU model', () => {
  // Left: the service's gpu_name; right: what the driver calls the card.
  const same: Array<[string, string]> = [
    ['H100 SXM', 'NVIDIA H100 80GB HBM3'],
    ['H100 PCIE', 'NVIDIA H100 PCIe'],
    ['H100 NVL', 'NVIDIA H100 NVL'],
    ['A100 SXM4', 'NVIDIA A100-SXM4-80GB'],
    ['A100 PCIE', 'NVIDIA A100-PCIE-40GB'],
    ['A100 PCIE', 'NVIDIA A100 80GB PCIe'],
    ['RTX 4090', 'NVIDIA GeForce RTX 4090'],
    ['RTX 6000Ada', 'NVIDIA RTX 6000 Ada Generation'],
    ['RTX A6000', 'NVIDIA RTX A6000'],
    ['Tesla V100', 'Tesla V100-SXM2-16GB'],
    ['L40S', 'NVIDIA L40S'],
    ['H200', 'NVIDIA H200'],
    ['RTX 4070 Ti', 'NVIDIA GeForce RTX 4070 Ti'],
  ];
  const different: Array<[string, string]> = [
    ['H100 SXM', 'NVIDIA H100 PCIe'],
    ['H100 SXM', 'NVIDIA A100-SXM4-80GB'],
    ['RTX 4090', 'NVIDIA GeForce RTX 3090'],
    ['RTX 4090', 'NVIDIA GeForce RTX 4090 D'],
    ['RTX 4070', 'NVIDIA GeForce RTX 4070 Ti'],
    ['RTX 4070 Ti', 'NVIDIA GeForce RTX 4070 SUPER'],
    ['RTX 6000Ada', 'Quadro RTX 6000'],
    ['RTX A6000', 'NVIDIA RTX A5000'],
    ['L40S', 'NVIDIA L40'],
    ['A100 PCIE', 'NVIDIA A100-SXM4-80GB'],
  ];
  for (const [offered, actual] of same)
    it(`"${actual}" is the offered "${offered}"`, () => assert.equal(sameGpuModel(offered, actual), true));
  for (const [offered, actual] of different)
    it(`"${actual}" is not the offered "${offered}"`, () => assert.equal(sameGpuModel(offered, actual), false));
});

const gpu = (index: number, over: Partial<GpuRow> = {}): GpuRow => ({
  index,
  name: 'NVIDIA GeForce RTX 4090',
  memoryMiB: 24564,
  driver: '575.57.08',
  pcieGen: 4,
  pcieGenMax: 4,
  pcieWidth: 16,
  pcieWidthMax: 16,
  ...over,
});
const matrix = (n: number, cell: string): GpuMatrix => ({
  gpus: Array.from({ length: n }, (_, i) => i),
  cells: Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 'X' : cell))),
});
const reading = (gpus: GpuRow[], over: Partial<HealthReading> = {}): HealthReading => ({
  smiFound: true,
  gpus: readOk(gpus),
  version: readOk({ driver: '575.57.08', cuda: '12.9' }),
  p2p: readOk(matrix(gpus.length, 'OK')),
  topo: readOk(matrix(gpus.length, 'PHB')),
  disk: readOk({ folder: '/workspace', sizeBytes: 50e9, freeBytes: 40e9 }),
  write: readOk({ kind: 'measured', bytesPerSecond: 900e6 }),
  speed: readOk({ kind: 'off' }),
  ...over,
});
const OFFER: Offered = {
  gpu_name: 'RTX 4090',
  num_gpus: 2,
  gpu_ram: 24564,
  driver_version: '575.57.08',
  cuda_max_good: 12.9,
  pci_gen: 4,
  gpu_lanes: 16,
  disk_space: 50,
};
const mismatches = (r: HealthReading, o: Offered = OFFER) =>
  judge(r, o)
    .findings.filter((f) => f.level === 'mismatch')
    .map((f) => f.code);

describe('health: the verdict', () => {
  it('as offered: one short sentence, then the disk', () => {
    const v = judge(reading([gpu(0), gpu(1)]), OFFER);
    assert.equal(v.matches, true);
    assert.equal(v.text, '2× RTX 4090 as offered. Its disk has 40.0 GB free of 50.0 GB at /workspace. It writes 900 MB/s to its disk.');
  });

  it('P2P off on two GPUs: as offered, with the warning the issue asks for', () => {
    const v = judge(reading([gpu(0), gpu(1)], { p2p: readOk(matrix(2, 'NS')) }), OFFER);
    assert.equal(v.matches, true);
    assert.match(v.text, /^2× RTX 4090 as offered\. P2P is off between its GPUs \(NS\), so multi-GPU training will be slow\./);
  });

  it('another model, a GPU missing, uncorrected ECC errors, less VRAM, an older CUDA: each is a mismatch', () => {
    assert.deepEqual(mismatches(reading([gpu(0, { name: 'NVIDIA GeForce RTX 3090' }), gpu(1, { name: 'NVIDIA GeForce RTX 3090' })])), [
      'model',
    ]);
    assert.deepEqual(mismatches(reading([gpu(0)])), ['count']);
    assert.deepEqual(mismatches(reading([gpu(0), gpu(1, { eccUncorrected: 3 })])), ['ecc']);
    assert.deepEqual(mismatches(reading([gpu(0, { memoryMiB: 16384 }), gpu(1)])), ['vram']);
    assert.deepEqual(mismatches(reading([gpu(0), gpu(1)], { version: readOk({ driver: '550.1.2', cuda: '12.4' }) })), ['cuda']);
    const v = judge(reading([gpu(0, { name: 'NVIDIA GeForce RTX 3090' })]), OFFER);
    assert.match(
      v.text,
      /^Not what was offered \(2× RTX 4090\)\. It has 1× NVIDIA GeForce RTX 3090, not the offered RTX 4090\. GPUs found: 1 of 2 offered\./,
    );
  });

  it('VRAM within the tolerance (ECC on, MB against MiB) is the offered card; CUDA 12.10 is newer than 12.9', () => {
    // An A6000 with ECC on reports 48685 MiB of the listed 49140.
    assert.deepEqual(
      mismatches(reading([gpu(0, { name: 'NVIDIA RTX A6000', memoryMiB: 48685 })]), { gpu_name: 'RTX A6000', num_gpus: 1, gpu_ram: 49140 }),
      [],
    );
    // Listed as 10^6-byte MB: 24564 MB is 23426 MiB.
    assert.deepEqual(mismatches(reading([gpu(0, { memoryMiB: 23426 }), gpu(1, { memoryMiB: 23426 })])), []);
    assert.deepEqual(mismatches(reading([gpu(0), gpu(1)], { version: readOk({ cuda: '12.10' }) })), []);
  });

  it('a narrower PCIe link, a lower generation than offered, SYS links, a small or slow disk: warnings, not mismatches', () => {
    const v = judge(
      reading([gpu(0, { pcieWidth: 4 }), gpu(1, { pcieGenMax: 3, pcieGen: 3 })], {
        topo: readOk(matrix(2, 'SYS')),
        disk: readOk({ folder: '/workspace', sizeBytes: 20e9, freeBytes: 2e9 }),
        write: readOk({ kind: 'measured', bytesPerSecond: 20e6 }),
      }),
      OFFER,
    );
    assert.equal(v.matches, true);
    assert.deepEqual(
      v.findings.filter((f) => f.level === 'warning').map((f) => f.code),
      ['pcie', 'pcie', 'link', 'disk', 'disk', 'write'],
    );
    assert.match(v.text, /GPU 0 runs its PCIe link at x4 of x16/);
    assert.match(v.text, /GPU 1 has PCIe gen 3 at most; the offer says gen 4/);
  });

  it('an idle GPU below its PCIe generation is not flagged (nvidia-smi says it drops while idle)', () => {
    const v = judge(reading([gpu(0, { pcieGen: 1 }), gpu(1, { pcieGen: 1 })]), OFFER);
    assert.equal(v.findings.filter((f) => f.code === 'pcie').length, 0);
  });

  it('nvidia-smi missing or unreadable: not readable, no mismatch claimed, the disk still reported', () => {
    const missing = judge(reading([], { smiFound: false, gpus: readFailed('nvidia-smi not found') }), OFFER);
    assert.equal(missing.readable, false);
    assert.equal(missing.matches, false);
    assert.deepEqual(
      missing.findings.map((f) => f.level),
      ['warning', 'note', 'note'],
    );
    assert.match(missing.text, /^nvidia-smi is not on the machine, so its GPUs could not be checked\./);
    const garbage = judge(reading([], { gpus: readFailed('a line has 1 values for 10 fields') }), OFFER);
    assert.match(garbage.text, /could not be read \(a line has 1 values for 10 fields\)/);
  });

  it('the GPU name the machine reports shows its hidden characters escaped', () => {
    const v = judge(reading([gpu(0, { name: 'NVIDIA \u202eGeForce' }), gpu(1)]), OFFER);
    assert.ok(!v.text.includes('\u202e'));
    assert.match(v.text, /\\u202E/);
  });
});
