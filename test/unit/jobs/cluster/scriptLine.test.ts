import assert from 'node:assert/strict';
import { scriptBoxValue, splitScriptLine } from '../../../../src/core/jobs/cluster/scriptLine';

describe("jobs/cluster: Run on Cluster's script box", () => {
  it('reads the first word as the script and the rest, as typed, as its arguments', () => {
    assert.deepEqual(splitScriptLine('train.py'), { script: 'train.py' });
    assert.deepEqual(splitScriptLine('  train.py   --epochs 3  --name "a b" '), { script: 'train.py', args: '--epochs 3  --name "a b"' });
  });

  it('reads a quoted path with spaces as one script, in single or double quotes', () => {
    assert.deepEqual(splitScriptLine("'my dir/train.py' --lr 3"), { script: 'my dir/train.py', args: '--lr 3' });
    assert.deepEqual(splitScriptLine('"it\'s here/train.py"'), { script: "it's here/train.py" });
  });

  it('says what is wrong with an open quote, a quote glued to an argument, or an empty quoted path', () => {
    assert.match((splitScriptLine("'my dir/train.py --lr 3") as { problem: string }).problem, /never closed/);
    assert.match((splitScriptLine("'train.py'--lr") as { problem: string }).problem, /Put a space/);
    assert.match((splitScriptLine("'' --lr") as { problem: string }).problem, /Type the script/);
  });

  it("suggests the editor's file as is, or quoted when its path holds a space or a quote, and reads it back", () => {
    for (const path of ['train.py', 'my dir/train.py', "it's/train.py", 'tab\there.py']) {
      const box = scriptBoxValue(path);
      assert.deepEqual(splitScriptLine(box), { script: path }, box);
    }
    assert.equal(scriptBoxValue('my dir/train.py'), "'my dir/train.py'");
    assert.equal(scriptBoxValue(undefined), '');
  });
});
