// The simulator's nvidia-smi (test/marketplace/nvidiaSmi.ts) against what the real tool printed on
// an H100 (test/fixtures/nvidia-smi/): given the same hardware, the same header, columns, separators,
// units and matrices; and a lie set through the control route shows from the next call of a running
// instance's tool.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGpuCsv, readGpuMatrix, p2pOff } from '../../../src/core/health/smi';
import { writeFakeSmi, type SmiHardware } from '../../marketplace/nvidiaSmi';
import { call, control, rentOne, simulatorForSuite } from '../../support';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'nvidia-smi');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const CAPTURED_FIELDS = /FIELDS=(\S+)/.exec(fixture('capture.sh'))![1]!.split(',');

/** The captured machine's facts. */
const H100: SmiHardware = {
  name: 'NVIDIA H100 80GB HBM3',
  count: 1,
  memoryMiB: 81559,
  driver: '580.159.04',
  cuda: '13.0',
  pcieGen: 5,
  pcieWidth: 16,
  ecc: true,
  eccErrors: 0,
  p2p: 'OK',
  link: 'NV18',
  computeCap: '9.0',
};

describe('simulator: its nvidia-smi prints what the real one prints', () => {
  let folder: string;
  const smi = (...args: string[]) => {
    const run = spawnSync(join(folder, 'nvidia-smi'), args, { encoding: 'utf8' });
    return { out: run.stdout, status: run.status };
  };
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'gpu-rental-fake-smi-'));
    writeFakeSmi(folder, H100);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('--version, topo -m and topo -p2p r|w|n: byte for byte', () => {
    assert.deepEqual(smi('--version'), { out: fixture('version.txt'), status: 0 });
    assert.deepEqual(smi('topo', '-m'), { out: fixture('topo-m.txt'), status: 0 });
    for (const k of ['r', 'w', 'n']) assert.deepEqual(smi('topo', '-p2p', k), { out: fixture(`topo-p2p-${k}.txt`), status: 0 });
  });

  it('the CSV query: the header, the columns, ", " and the units of the captured fields it knows', () => {
    const known = CAPTURED_FIELDS.filter((f) => smi(`--query-gpu=${f}`, '--format=csv').status === 0);
    assert.ok(known.length >= 15, `knows ${known.join(',')}`);
    const realHeader = fixture('query-csv.txt').split('\n')[0]!.split(', ');
    const realRow = fixture('query-csv.txt').split('\n')[1]!.split(', ');
    const realBare = fixture('query-csv-noheader-nounits.txt').trim().split(', ');
    const [header, row] = smi(`--query-gpu=${known.join(',')}`, '--format=csv').out.split('\n');
    const bare = smi(`--query-gpu=${known.join(',')}`, '--format=csv,noheader,nounits').out.trim();
    const at = known.map((f) => CAPTURED_FIELDS.indexOf(f));
    assert.deepEqual(
      header!.split(', '),
      at.map((i) => realHeader[i]),
    );
    // Values that follow from the hardware are equal; the rest (uuid, bus id, temperature) have the real shape.
    const shape = (v: string) => v.replace(/[0-9a-f]/gi, '0').replace(/0+/g, '0');
    assert.deepEqual(
      row!.split(', ').map(shape),
      at.map((i) => shape(realRow[i]!)),
    );
    assert.deepEqual(
      bare.split(', ').map(shape),
      at.map((i) => shape(realBare[i]!)),
    );
    for (const f of ['index', 'name', 'memory.total', 'driver_version', 'pcie.link.gen.max', 'pcie.link.width.max', 'ecc.mode.current'])
      assert.equal(bare.split(', ')[known.indexOf(f)], realBare[CAPTURED_FIELDS.indexOf(f)], f);
  });

  it('a field it does not know is refused as the real tool refuses one; -L has the real shape', () => {
    assert.deepEqual(smi('--query-gpu=not.a.field', '--format=csv'), { out: fixture('query-bad-field.txt'), status: 2 });
    const line = /^GPU 0: NVIDIA H100 80GB HBM3 \(UUID: GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)\n$/;
    assert.match(fixture('list.txt'), line);
    assert.match(smi('-L').out, line);
  });

  it('lies from its next call: two GPUs of another name with P2P off and ECC errors, then none', () => {
    writeFakeSmi(folder, { ...H100, count: 2, name: 'NVIDIA GeForce RTX 3060', p2p: 'NS', eccErrors: 4 });
    const gpus = readGpuCsv(smi('--query-gpu=index,name,ecc.errors.uncorrected.volatile.total', '--format=csv,noheader,nounits').out, [
      'index',
      'name',
      'ecc.errors.uncorrected.volatile.total',
    ]);
    assert.deepEqual(gpus.ok && gpus.value.map((g) => [g.name, g.eccUncorrected]), [
      ['NVIDIA GeForce RTX 3060', 4],
      ['NVIDIA GeForce RTX 3060', 0],
    ]);
    const p2p = readGpuMatrix(smi('topo', '-p2p', 'r').out);
    assert.ok(p2p.ok && p2pOff(p2p.value).length === 1);
    const topo = readGpuMatrix(smi('topo', '-m').out);
    assert.ok(topo.ok && topo.value.cells[0]![1] === 'NV18');
    writeFakeSmi(folder, { ...H100, count: 0 });
    assert.deepEqual(smi('--query-gpu=index', '--format=csv'), { out: 'No devices were found\n', status: 6 });
  });
});

describe('simulator: POST /__control/instances/:id/gpu', () => {
  const sim = simulatorForSuite({ seed: 5 });

  it('answers what the tool reports now, takes a lie back with {}, refuses a bad body and an unknown instance', async () => {
    const { id } = await rentOne(sim);
    const offer = { num_gpus: sim.control.instance(id)!.num_gpus as number };
    const lied = (await control(sim, 'POST', `instances/${id}/gpu`, {
      name: 'NVIDIA GeForce GTX 1080',
      missing: 1,
      ecc: 3,
      p2p: false,
    })) as Record<string, unknown>;
    assert.deepEqual((({ name, count, eccErrors, p2p, ecc }) => ({ name, count, eccErrors, p2p, ecc }))(lied.nvidia_smi as SmiHardware), {
      name: 'NVIDIA GeForce GTX 1080',
      count: offer.num_gpus - 1,
      eccErrors: 3,
      p2p: 'NS',
      ecc: true,
    });
    const honest = ((await control(sim, 'POST', `instances/${id}/gpu`, {})) as { nvidia_smi: SmiHardware }).nvidia_smi;
    assert.equal(honest.count, offer.num_gpus);
    assert.equal(honest.p2p, 'OK');
    for (const body of [{ name: 'a, b' }, { missing: -1 }, { ecc: 1.5 }, { p2p: 'off' }])
      assert.equal((await call(sim, 'POST', `/__control/instances/${id}/gpu`, body, null)).status, 400, JSON.stringify(body));
    assert.equal((await call(sim, 'POST', '/__control/instances/999999/gpu', {}, null)).status, 404);
  });
});
