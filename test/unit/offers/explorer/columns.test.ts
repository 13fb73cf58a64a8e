import assert from 'node:assert/strict';
import {
  COLUMN_IDS,
  COLUMNS,
  DEFAULT_COLUMN_LAYOUT,
  columnById,
  durationText,
  readColumnLayout,
  rentalTypeText,
  rowPriceContext,
} from '../../../../src/core/offers/explorer/columns';
import { offer } from './fixtures';

const text = (id: (typeof COLUMN_IDS)[number], o = offer({ id: 1 })) => columnById(id).text(o, { type: 'on-demand' });

describe('offer explorer columns', () => {
  it('has one column per compared field, each with a spoken name, in the catalogue order', () => {
    assert.deepEqual(
      COLUMNS.map((c) => c.id),
      [...COLUMN_IDS],
    );
    for (const c of COLUMNS) assert.ok(c.name.length > 2, c.id);
  });

  it('shows the wire units as people compare them: GB, $/GPU/h, percent, Mb/s, days', () => {
    const o = offer({
      id: 1,
      num_gpus: 4,
      dph_total: 2,
      gpu_ram: 81_920,
      cpu_ram: 5_120,
      inet_down: 812.4,
      disk_bw: 2100.7,
      reliability2: 0.9876,
      duration: 3.5 * 86_400,
      driver_version: '535.86.05',
      total_flops: 330.25,
    });
    assert.equal(text('vram', o), '80 GB');
    assert.equal(text('ram', o), '5.0 GB');
    assert.equal(text('price', o), '$2.00');
    assert.equal(text('pricePerGpu', o), '$0.500');
    assert.equal(text('reliability', o), '98.8%');
    assert.equal(text('inetDown', o), '812');
    assert.equal(text('diskBw', o), '2,101');
    assert.equal(text('maxDuration', o), '3.5 d');
    assert.equal(text('driver', o), '535.86.05');
    assert.equal(text('tflops', o), '330.3');
  });

  it('leaves a cell empty and the value unknown when the service did not send the field', () => {
    const o = offer({ id: 1, dlperf: undefined, inet_up: null });
    assert.equal(text('dlperf', o), '');
    assert.equal(text('inetUp', o), '');
    assert.equal(columnById('dlperf').value(o, { type: 'on-demand' }), undefined);
  });

  it("shows an offer's cluster id, empty when its machine is in no cluster, and sorts those last", () => {
    assert.equal(text('cluster', offer({ id: 1, cluster_id: 4812 })), '4812');
    assert.equal(text('cluster', offer({ id: 1, cluster_id: null })), '');
    assert.equal(columnById('cluster').value(offer({ id: 1, cluster_id: null }), { type: 'on-demand' }), undefined);
    assert.equal(columnById('cluster').kind, 'number');
  });

  it('names the rental type, with the minimum bid for interruptible searches', () => {
    assert.equal(rentalTypeText(offer({ id: 1, min_bid: 0.21 }), 'bid'), 'interruptible, min $0.210/h');
    assert.equal(rentalTypeText(offer({ id: 1 }), 'on-demand'), 'on-demand');
  });

  it('reads max duration in hours under a day and whole days from ten', () => {
    assert.equal(durationText(5 * 3600), '5 h');
    assert.equal(durationText(40 * 86_400), '40 d');
    assert.equal(durationText(-3), '');
  });

  it('turns a price context into a short cell and a signed difference', () => {
    assert.deepEqual(rowPriceContext({ percent: 18, relation: 'under', text: '18% under the 7-day median', medianPerGpu: 0.5 }), {
      text: '18% under',
      sentence: '18% under the 7-day median',
      delta: -0.18,
    });
    assert.equal(rowPriceContext({ percent: 0, relation: 'at', text: 'at the 7-day median', medianPerGpu: 0.5 })?.text, 'at median');
    assert.equal(rowPriceContext(undefined), undefined);
  });

  it('reads a remembered layout defensively: unknown and repeated columns dropped, widths clamped, GPU kept', () => {
    assert.deepEqual(
      readColumnLayout({ visible: ['price', 'bogus', 'price', 'dlperf'], widths: { price: 5000, dlperf: 'wide', nope: 80 } }),
      {
        visible: ['gpu', 'price', 'dlperf'],
        widths: { price: 600 },
      },
    );
    assert.deepEqual(readColumnLayout('garbage'), { visible: DEFAULT_COLUMN_LAYOUT.visible, widths: {} });
    assert.deepEqual(readColumnLayout({ widths: { gpu: 10 } }).widths, { gpu: 32 });
  });
});
