import assert from 'node:assert/strict';
import { pseudo, pseudoBundle } from '../harness/pseudoLocale';

describe('the pseudo translation the l10n e2e test installs', () => {
  it('marks a message, keeping its placeholders, icons and the white space at its ends outside the marks', () => {
    assert.equal(pseudo('Stop {0}?'), '⟦Stop {0}?⟧');
    assert.equal(pseudo('$(loading~spin) {0} booting'), '⟦$(loading~spin) {0} booting⟧');
    assert.equal(pseudo(' Its disk still bills.\n\n'), ' ⟦Its disk still bills.⟧\n\n');
    assert.equal(pseudo('   '), '   ', 'nothing to mark');
  });

  it('leaves out the messages asked for, so VS Code must fall back to English, and refuses one the bundle lacks', () => {
    const english = { Offers: 'Offers', 'prices include {0} disk': 'prices include {0} disk' };
    assert.deepEqual(pseudoBundle(english, ['prices include {0} disk']), { Offers: '⟦Offers⟧' });
    assert.throws(() => pseudoBundle(english, ['Nope']), /no such message/);
  });
});
