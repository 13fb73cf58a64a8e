import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { visibleText } from '../../src/core/text';

/** Every character the function must never let through: what a person cannot see or that reorders text. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

describe('text from outside, as a message shows it', () => {
  it('shows a right-to-left override as its escape, so the text after it does not read reversed', () => {
    const shown = visibleText('work\u202Etxt.exe');
    assert.equal(shown, 'work\\u202Etxt.exe');
    assert.ok(!shown.includes('\u202E'));
  });

  it('shows every bidi control as its escape', () => {
    for (const c of [
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200E',
      '\u200F',
      '\u061C',
    ]) {
      const code = c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      assert.equal(visibleText(`a${c}b`), `a\\u${code}b`, code);
    }
  });

  it('shows zero-width characters and the byte order mark as escapes', () => {
    assert.equal(visibleText('de\u200Bfault'), 'de\\u200Bfault');
    assert.equal(visibleText('a\u200Cb\u200Dc\u2060d\uFEFFe'), 'a\\u200Cb\\u200Dc\\u2060d\\uFEFFe');
  });

  it('shows other invisible format characters and fillers, above the basic plane too', () => {
    assert.equal(visibleText('soft\u00ADhyphen'), 'soft\\u00ADhyphen');
    assert.equal(visibleText('tag\u{E0041}'), 'tag\\u{E0041}', 'a tag character (category Cf)');
    assert.equal(visibleText('\u3164name'), '\\u3164name', 'the Hangul filler draws as nothing');
    assert.equal(visibleText('lone \uD800 half'), 'lone \\uD800 half', 'half of a surrogate pair');
  });

  it('shows control characters and line breaks as escapes: one value cannot forge a second line', () => {
    assert.equal(visibleText('1\n2'), '1\\u000A2');
    assert.equal(visibleText('a\r\tb\u0000\u001B[31mred'), 'a\\u000D\\u0009b\\u0000\\u001B[31mred');
    assert.equal(visibleText('c1\u0085\u009Bx'), 'c1\\u0085\\u009Bx');
    assert.equal(visibleText('line\u2028para\u2029'), 'line\\u2028para\\u2029');
  });

  it('leaves ordinary text alone: accents, right-to-left script, CJK, emoji', () => {
    for (const text of ['Ärger über Öl', 'שלום עולם', 'مرحبا', '训练任务', 'train 🔥 ❤️', 'path\\with\\backslashes', '']) {
      assert.equal(visibleText(text), text, text);
    }
  });

  it('cuts a long value, with an ellipsis, never inside an escape or a character', () => {
    assert.equal(visibleText('x'.repeat(80)), 'x'.repeat(80), 'the default length fits');
    assert.equal(visibleText('x'.repeat(81)), `${'x'.repeat(79)}…`);
    assert.equal(visibleText('abcdef', 4), 'abc…');
    assert.equal(visibleText('ab\u202Ecd', 8), 'ab…', 'the escape does not fit whole, so it is left out whole');
    assert.equal(visibleText('🔥'.repeat(10), 5), '🔥🔥🔥🔥…', 'a character above the basic plane counts once');
  });

  it('shows link syntax as text: `](` is shown as `]\\(`, so no link starts there (issue 36, defect 3)', () => {
    // VS Code's notifications link `[label](https://…)`, `[label](command:…)` and `[label](file:…)`.
    const link = /\[[^\]]*\]\((?:https?:\/\/|command:|file:)/;
    const cases: Array<[string, string]> = [
      ['[Fix the driver](command:workbench.action.openSettings)', '[Fix the driver]\\(command:workbench.action.openSettings)'],
      ['[x](https://evil)', '[x]\\(https://evil)'],
      ['see [docs](file:///etc/passwd) and [more](http://a)', 'see [docs]\\(file:///etc/passwd) and [more]\\(http://a)'],
      ['[a]]((b)', '[a]]\\((b)'],
    ];
    for (const [value, shown] of cases) {
      assert.equal(visibleText(value, 200), shown);
      assert.doesNotMatch(visibleText(value, 200), link);
      assert.equal(visibleText(shown, 200), shown, 'applying it again changes nothing');
    }
    assert.equal(visibleText('[x](y', 4), '[x]…', 'the backslash counts toward the length and is never left alone');
    assert.equal(visibleText('a (b) [c] \\(d)'), 'a (b) [c] \\(d)', 'brackets and parentheses apart are left alone');
  });

  it('for any text of brackets, parentheses and link words: no `](` comes out, and applying it again changes nothing', () => {
    const piece = fc.constantFrom('[', ']', '(', ')', '\\', 'command:', 'https://', 'x', ' ', '\u202E', '…');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 60 }), (pieces, max) => {
        const shown = visibleText(pieces.join(''), max);
        assert.ok(!shown.includes(']('), JSON.stringify(shown));
        assert.ok([...shown].length <= max);
        assert.equal(visibleText(shown, max), shown);
      }),
      { seed: 36, numRuns: 3_000 },
    );
  });

  it('for any text: nothing hidden comes out, the length holds, and applying it again changes nothing', () => {
    const text = fc.string({ unit: 'binary', maxLength: 120 });
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 100 }), (value, max) => {
        const shown = visibleText(value, max);
        assert.ok(!HIDDEN.test(shown), JSON.stringify(shown));
        assert.ok([...shown].length <= max, `${[...shown].length} > ${max}`);
        assert.equal(visibleText(shown, max), shown);
      }),
      { seed: 20_261_126, numRuns: 2_000 },
    );
  });
});
