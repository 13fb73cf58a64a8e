import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SshConfigError, withInclude, withoutInclude } from '../../../src/core/ssh/config';
import { INCLUDE, OTHER_INCLUDE, CASES, parse, minusBlock, bytesChanged, assertPlaced, anyConfig } from './configArbs';

describe('managed SSH config block over arbitrary bytes (property, 10,000 cases)', function () {
  this.timeout(120_000);

  it('changes no byte outside the markers and leaves the block once, where ssh reads it', () => {
    const counts = { cases: 0, withBlock: 0, moved: 0, refused: 0, edits: 0, bytesChangedOutside: 0 };
    fc.assert(
      fc.property(anyConfig, (input) => {
        counts.cases++;
        const before = parse(input);
        if (
          before.begins.length > 1 ||
          before.ends.length > 1 ||
          before.begins.length !== before.ends.length ||
          before.ends[0]! < before.begins[0]!
        ) {
          // Unbalanced markers are refused, never guessed at.
          assert.throws(() => withInclude(input, INCLUDE), SshConfigError);
          assert.throws(() => withoutInclude(input), SshConfigError);
          counts.refused++;
          return;
        }
        const original = Buffer.from(input);
        const outside = minusBlock(input);
        const hadBlock = before.begins.length === 1;
        if (hadBlock) counts.withBlock++;

        // Single edit: withoutInclude alone.
        const removedOnly = withoutInclude(input);
        counts.edits++;
        assert.equal(removedOnly.changed, hadBlock);
        assert.deepEqual(removedOnly.text, outside);

        // withInclude, then again (stable), then with another pattern, then withoutInclude.
        const added = withInclude(input, INCLUDE);
        counts.edits++;
        assertPlaced(added.text, INCLUDE);
        counts.bytesChangedOutside += bytesChanged(outside, minusBlock(added.text));
        assert.deepEqual(minusBlock(added.text), outside, 'bytes outside the markers');
        if (!hadBlock) {
          const bom = before.bom ? 3 : 0;
          assert.deepEqual(added.text.subarray(0, bom), input.subarray(0, bom), 'a byte-order mark stays first');
          assert.deepEqual(
            added.text.subarray(parse(added.text).lines[2]!.end),
            input.subarray(bom),
            'a new block goes first, the file after it',
          );
        }
        if (hadBlock && parse(added.text).lines[parse(added.text).begins[0]!]!.start !== before.lines[before.begins[0]!]!.start)
          counts.moved++;
        assert.equal(added.changed, !added.text.equals(input));

        const again = withInclude(added.text, INCLUDE);
        counts.edits++;
        assert.equal(again.changed, false, 'a second connect changes nothing');
        assert.equal(again.text, added.text);

        const repointed = withInclude(added.text, OTHER_INCLUDE);
        counts.edits++;
        assertPlaced(repointed.text, OTHER_INCLUDE);
        counts.bytesChangedOutside += bytesChanged(outside, minusBlock(repointed.text));
        assert.deepEqual(minusBlock(repointed.text), outside);

        const removed = withoutInclude(repointed.text);
        counts.edits++;
        assert.equal(removed.changed, true);
        counts.bytesChangedOutside += bytesChanged(outside, removed.text);
        assert.deepEqual(removed.text, outside, 'removal leaves exactly the bytes outside the markers');
        assert.equal(parse(removed.text).begins.length + parse(removed.text).ends.length, 0);
        assert.deepEqual(input, original, 'the input buffer is never written to');
      }),
      { numRuns: CASES },
    );
    console.log(
      `      config property: ${counts.cases} cases (${counts.withBlock} with a block already, ${counts.moved} of them moved to the top, ${counts.refused} refused for stray markers), ${counts.edits} edits, ${counts.bytesChangedOutside} bytes changed outside the markers`,
    );
    assert.equal(counts.cases, CASES);
    assert.equal(counts.bytesChangedOutside, 0);
    assert.ok(
      counts.withBlock > CASES / 10 && counts.moved > CASES / 50 && counts.refused > CASES / 50,
      'the generator reaches every kind of case',
    );
  });
});
