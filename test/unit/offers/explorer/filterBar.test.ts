import assert from 'node:assert/strict';
import { applyFilterBar, filterBarValues, queryProblem } from '../../../../src/core/offers/explorer/filterBar';
import { parseQuery } from '../../../../src/core/offers/search';

describe('offer explorer filter bar', () => {
  it('writes each control as a clause of the same query text, in the units people type', () => {
    let q = applyFilterBar('', 'count', '2');
    assert.equal(q, 'num_gpus>=2');
    q = applyFilterBar(q, 'vram', '24');
    assert.equal(parseQuery(q).filters['gpu_ram']?.gte, 24_000);
    q = applyFilterBar(q, 'gpu', 'RTX 4090');
    assert.equal(parseQuery(q).filters['gpu_name']?.eq, 'RTX 4090');
    q = applyFilterBar(q, 'price', '1.5');
    q = applyFilterBar(q, 'region', 'us, ca');
    assert.deepEqual(parseQuery(q).filters['geolocation'], { in: ['US', 'CA'] });
    q = applyFilterBar(q, 'type', 'bid');
    assert.equal(parseQuery(q).type, 'bid');
    assert.deepEqual(filterBarValues(parseQuery(q)), {
      gpu: 'RTX 4090',
      count: '2',
      vram: '24',
      price: '1.5',
      reliability: '',
      verified: 'yes',
      region: 'US,CA',
      type: 'bid',
    });
  });

  it('removes a clause when the control is emptied, keeping the field’s other operators', () => {
    const q = applyFilterBar('num_gpus>=2 num_gpus<=4 dph<=1', 'count', '');
    assert.deepEqual(parseQuery(q).filters['num_gpus'], { lte: 4 });
    assert.equal(parseQuery(applyFilterBar(q, 'price', '')).filters['dph_total'], undefined);
  });

  it('turns the verified default off with any, and on again with yes', () => {
    const any = applyFilterBar('', 'verified', 'any');
    assert.equal(any, 'verified=any');
    assert.equal(parseQuery(any).filters['verified'], undefined);
    assert.equal(filterBarValues(parseQuery(any)).verified, 'any');
    assert.equal(applyFilterBar(any, 'verified', 'yes'), '');
  });

  it('refuses a value it cannot read, naming the control', () => {
    assert.throws(() => applyFilterBar('', 'count', '1.5'), /^RangeError: GPUs at least: enter a whole number between 1 and 128/);
    assert.throws(() => applyFilterBar('', 'count', '0x10'), /GPUs at least: enter a whole number/);
    assert.throws(() => applyFilterBar('', 'vram', '1e2'), /VRAM at least: enter GB per GPU/);
    assert.throws(() => applyFilterBar('', 'price', '0b1'), /Price at most: enter dollars per hour/);
    assert.throws(() => applyFilterBar('', 'reliability', '0o1'), /Reliability at least: enter a number between 0 and 1/);
    assert.throws(() => applyFilterBar('', 'price', 'cheap'), /Price at most/);
    assert.throws(() => applyFilterBar('', 'region', 'United States'), /two-letter codes/);
  });

  it('says where raw query text does not parse', () => {
    assert.equal(queryProblem('num_gpus>=2'), undefined);
    const problem = queryProblem('num_gpus>= dph<1');
    assert.ok(problem && typeof problem.start === 'number', JSON.stringify(problem));
    assert.match(problem.message, /column/);
  });
});
