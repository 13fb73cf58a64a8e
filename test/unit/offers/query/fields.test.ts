import assert from 'node:assert/strict';
import { OFFER_QUERY_ALIASES, OFFER_QUERY_FIELDS } from '../../../../src/core/offers/query/fields';

describe('offer query language: fields', () => {
  it('describes the known fields for completion and help', () => {
    const names = OFFER_QUERY_FIELDS.map((field) => field.name);
    assert.equal(new Set(names).size, names.length, 'no duplicates');
    for (const name of [
      'gpu_name',
      'num_gpus',
      'gpu_ram',
      'dph_total',
      'reliability',
      'geolocation',
      'verified',
      'cuda_max_good',
      'duration',
      'driver_version',
    ]) {
      assert.ok(names.includes(name), name);
    }
    for (const alias of OFFER_QUERY_ALIASES.keys()) assert.ok(!names.includes(alias), `${alias} is an alias, not a field`);
    assert.ok(!names.includes('type') && !names.includes('order'));
    const unit = (name: string) => OFFER_QUERY_FIELDS.find((field) => field.name === name)?.unit;
    assert.equal(unit('gpu_ram'), 'GB');
    assert.equal(unit('cpu_ram'), 'GB');
    assert.equal(unit('duration'), 'days');
    assert.equal(unit('dph_total'), '$/hour');
    for (const field of OFFER_QUERY_FIELDS) {
      assert.ok(['number', 'bool', 'string'].includes(field.kind), field.name);
      assert.ok(field.description.length > 5, field.name);
    }
  });
});
