import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Offer } from '../../../../src/core/api/offers';
import { groupByCluster } from '../../../../src/core/offers/explorer/clusters';
import {
  COLUMN_IDS,
  COLUMNS,
  DEFAULT_VISIBLE_COLUMNS,
  rowPriceContext,
  type RowContext,
} from '../../../../src/core/offers/explorer/columns';
import { compileFilters, OfferTable } from '../../../../src/core/offers/explorer/rows';
import {
  decodeOffers,
  encodeOffers,
  OFFER_FIELD_KINDS,
  pageFields,
  type OfferColumns,
  type TransferField,
} from '../../../../src/core/offers/explorer/transfer';
import { priceContextFor, type GpuPriceStats } from '../../../../src/core/offers/priceContext';
import { parseQuery } from '../../../../src/core/offers/search';
import { offer } from './fixtures';

const FIELDS = Object.keys(OFFER_FIELD_KINDS) as TransferField[];
const REQUIRED = new Set<string>(['id', 'num_gpus', 'gpu_name', 'gpu_ram', 'dph_total']);

/** A number as JSON carries it (no -0, NaN or infinity: the service's JSON has none). */
const num = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((v) => v || 0);
/** A few strings, so that they repeat as GPU models and places do. */
const text = fc.constantFrom('RTX 4090', 'H100 SXM', 'Texas, US', 'Ohio, US', 'verified', '', '535.86.05', 'ünïcödé "q"');

/** An offer as the client reads it: the five fields it always has, any other field a value, null, or missing. */
const arbOffer: fc.Arbitrary<Offer> = fc.record(
  Object.fromEntries(
    FIELDS.map((f) => {
      const kind = OFFER_FIELD_KINDS[f];
      const value: fc.Arbitrary<unknown> =
        f === 'id' ? fc.integer({ min: 1, max: 1e9 }) : kind === 'number' ? num : kind === 'string' ? text : fc.boolean();
      return [f, REQUIRED.has(f) ? value : fc.option(value, { nil: null })];
    }),
  ),
  { requiredKeys: [...REQUIRED] },
) as unknown as fc.Arbitrary<Offer>;

/**
 * What travels, as it travels: VS Code posts a webview message as JSON with its typed arrays
 * beside it as binary, and the page gets copies (structured clone).
 */
const overTheWire = (encoded: OfferColumns): OfferColumns => structuredClone(encoded);
/** The offer with only `fields`, each set (undefined where missing): what the page should get. */
const project = (o: Offer, fields: readonly string[]) =>
  Object.fromEntries(fields.map((f) => [f, (o as unknown as Record<string, unknown>)[f]]));

describe('offers: the Offer Explorer transfer format', () => {
  it('decodes what it encoded, field by field, as posted: values, null and missing told apart', () => {
    fc.assert(
      fc.property(fc.array(arbOffer, { maxLength: 40 }), fc.subarray(FIELDS), (offers, fields) => {
        const decoded = decodeOffers(overTheWire(encodeOffers(offers, fields)));
        assert.deepStrictEqual(
          decoded,
          offers.map((o) => project(o, fields)),
        );
      }),
    );
  });

  it('writes each string once and sends numbers as numbers', () => {
    const offers = [1, 2, 3, 4].map((id) => offer({ id, gpu_name: id % 2 ? 'H100 SXM' : 'RTX 4090', geolocation: 'Texas, US' }));
    const encoded = encodeOffers(offers, ['id', 'gpu_name', 'geolocation', 'dph_total']);
    assert.deepEqual(encoded.strings, ['H100 SXM', 'RTX 4090', 'Texas, US']);
    assert.deepEqual([...encoded.columns['gpu_name']!.values], [0, 1, 0, 1]);
    assert.deepEqual([...encoded.columns['dph_total']!.values], [0.5, 0.5, 0.5, 0.5]);
    assert.equal(encoded.count, 4);
  });

  it('gives the page every field its columns, sort, filter bar, plot, price context and grouping read', () => {
    const stats: GpuPriceStats = { gpuName: 'RTX 4090', median7d: 0.6, points: [] } as unknown as GpuPriceStats;
    const ctxOf = (type: 'on-demand' | 'bid'): RowContext => ({
      type,
      priceContext: (o) => rowPriceContext(priceContextFor(o, stats)),
    });
    // The rows of a search with the default query; then each clause the filter bar writes, apart,
    // narrows them at once (so that one the rows cannot judge shows).
    const defaults = Object.keys(parseQuery('').filters);
    const clauses = [
      'gpu_name=RTX_4090',
      'num_gpus>=2',
      'gpu_ram>=16000',
      'dph_total<=2',
      'reliability>=0.9',
      'verified=true',
      'geolocation in [US]',
      'cluster_id!=null',
    ].map((q) => compileFilters(parseQuery(q).filters));
    fc.assert(
      fc.property(
        fc.array(arbOffer, { maxLength: 30 }),
        fc.subarray([...COLUMN_IDS]),
        fc.constantFrom<'on-demand' | 'bid'>('on-demand', 'bid'),
        (offers, visible, type) => {
          const rows = decodeOffers(overTheWire(encodeOffers(offers, pageFields(visible, defaults))));
          const ctx = ctxOf(type);
          offers.forEach((o, i) => {
            const row = rows[i]!;
            for (const column of COLUMNS.filter((c) => visible.includes(c.id))) {
              assert.equal(column.text(row, ctx), column.text(o, ctx), column.id);
              assert.deepEqual(column.value(row, ctx), column.value(o, ctx), column.id);
            }
            // The plot, the details' buttons and Rent Cluster… read these whatever the columns.
            for (const f of ['id', 'dph_total', 'dlperf', 'dlperf_per_dphtotal', 'machine_id', 'cluster_id'] as const)
              assert.equal(row[f], o[f]);
          });
          for (const test of clauses)
            assert.deepEqual(
              rows.map((r) => test(r)),
              offers.map((o) => test(o)),
            );
          const order = new OfferTable(offers, ctx).sorted([{ column: 'price', direction: 'asc' }]);
          assert.deepEqual(
            groupByCluster(rows, order, [{ column: 'count', direction: 'desc' }], ctx),
            groupByCluster(offers, order, [{ column: 'count', direction: 'desc' }], ctx),
          );
        },
      ),
    );
  });

  it('adds the fields the query filters on, and sends no field the page does not need', () => {
    const fields = pageFields(DEFAULT_VISIBLE_COLUMNS, Object.keys(parseQuery('pci_gen>=4 reliability>=0.9 nonsense=1').filters));
    assert.ok(fields.includes('pci_gen') && fields.includes('reliability2'));
    assert.ok(!(fields as string[]).includes('nonsense'));
    const shown = pageFields(DEFAULT_VISIBLE_COLUMNS);
    for (const unneeded of [
      'host_id',
      'cpu_name',
      'storage_cost',
      'storage_total_cost',
      'dph_base',
      'direct_port_count',
      'rentable',
      'total_flops',
      'search',
    ])
      assert.ok(!(shown as string[]).includes(unneeded), unneeded);
    const full = offer({ id: 5, host_id: 9, cpu_name: 'EPYC', storage_cost: 0.1, search: { totalHour: 0.5 } } as Partial<Offer> & {
      id: number;
    });
    const sent = encodeOffers([full], shown);
    assert.deepEqual(Object.keys(sent.columns), shown);
    assert.doesNotMatch(JSON.stringify(sent), /EPYC|host_id|storage_cost|totalHour/);
    // Every column is a typed array, so VS Code posts it as binary rather than as JSON text.
    for (const [field, column] of Object.entries(sent.columns))
      assert.ok(column.values instanceof (OFFER_FIELD_KINDS[field as TransferField] === 'number' ? Float64Array : Int32Array), field);
  });

  it('refuses columns that do not fit, rather than showing wrong offers', () => {
    const good = encodeOffers([offer({ id: 1 }), offer({ id: 2 })], ['id', 'gpu_name', 'verified']);
    const bad: OfferColumns[] = [
      { ...good, columns: { ...good.columns, host: { values: Float64Array.of(1, 2) } } },
      { ...good, columns: { ...good.columns, id: { values: Float64Array.of(1) } } },
      { ...good, columns: { ...good.columns, gpu_name: { values: Int32Array.of(0, 5) } } },
      { ...good, columns: { ...good.columns, verified: { values: Int32Array.of(1, 2) } } },
      // A plain array where a typed one belongs: the JSON of an older build.
      { ...good, columns: { ...good.columns, id: { values: [1, 2] as unknown as Float64Array } } },
      { ...good, count: -1 },
    ];
    for (const b of bad) assert.throws(() => decodeOffers(b), TypeError);
    assert.equal(decodeOffers(good).length, 2);
  });
});
