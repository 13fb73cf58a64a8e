// The activation bench's floor (test/bench/activationFloor.ts): an empty extension that VS Code must
// activate on GPU Rental's event, right before it, for the bench's difference to mean anything.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { activationOrder, FLOOR, FLOOR_ID, floorManifest, floorProblem, installFolder, median, rowMs } from '../bench/activationFloor';

const REPO = join(__dirname, '..', '..');
const MANIFEST = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  publisher: string;
  name: string;
  version: string;
  engines: { vscode: string };
  extensionKind?: string[];
  activationEvents: string[];
};
const ID = `${MANIFEST.publisher}.${MANIFEST.name}`;

/** The onStartupFinished part of a code-server 1.139 extension host log, as a window load writes it. */
const line = (id: string, event: string, startup = false) =>
  `2026-11-26 23:16:09.543 [info] ExtensionService#_doActivateExtension ${id}, startup: ${startup}, activationEvent: '${event}'`;
const LOG = [
  line('vscode.git-base', '*', true) + ', root cause: vscode.git',
  line('vscode.git', '*', true),
  line('vscode.debug-auto-launch', 'onStartupFinished'),
  line('vscode.merge-conflict', 'onStartupFinished'),
  line(FLOOR_ID, 'onStartupFinished'),
  line(ID, 'onStartupFinished'),
  line('vscode.json-language-features', 'onLanguage:json'),
].join('\n');

describe('the activation bench floor', () => {
  it("activates on GPU Rental's event, in GPU Rental's extension host", () => {
    assert.ok(MANIFEST.activationEvents.includes('onStartupFinished'), 'GPU Rental activates on onStartupFinished');
    const floor = floorManifest(MANIFEST);
    assert.deepEqual(floor['activationEvents'], ['onStartupFinished']);
    assert.deepEqual(floor['extensionKind'], MANIFEST.extensionKind);
    assert.deepEqual(floor['engines'], MANIFEST.engines);
  });

  it("is installed in a folder that VS Code orders right before GPU Rental's", () => {
    // VS Code orders installed extensions by their folder's name, compared as strings.
    const mine = installFolder(MANIFEST);
    const floor = installFolder(FLOOR);
    assert.equal(mine, `gpu-rental.gpu-rental-${MANIFEST.version}`);
    assert.ok(floor < mine, `${floor} sorts before ${mine}`);
  });

  it('reads the order of activations from the extension host log', () => {
    assert.deepEqual(
      activationOrder(LOG).map((a) => `${a.id} ${a.event}`),
      [
        'vscode.git-base *',
        'vscode.git *',
        'vscode.debug-auto-launch onStartupFinished',
        'vscode.merge-conflict onStartupFinished',
        `${FLOOR_ID} onStartupFinished`,
        `${ID} onStartupFinished`,
        'vscode.json-language-features onLanguage:json',
      ],
    );
    assert.equal(floorProblem(activationOrder(LOG), ID), undefined);
  });

  it('refuses a load where the floor is not right before GPU Rental on the same event', () => {
    const after = [line('vscode.merge-conflict', 'onStartupFinished'), line(ID, 'onStartupFinished'), line(FLOOR_ID, 'onStartupFinished')];
    assert.match(
      floorProblem(activationOrder(after.join('\n')), ID)!,
      /vscode.merge-conflict activated right before gpu-rental.gpu-rental/,
    );
    const between = [line(FLOOR_ID, 'onStartupFinished'), line('other.extension', 'onStartupFinished'), line(ID, 'onStartupFinished')];
    assert.match(floorProblem(activationOrder(between.join('\n')), ID)!, /other.extension activated right before/);
    const byView = `${line(ID, 'onView:gpuRental.instances')}\n${LOG}`;
    assert.match(floorProblem(activationOrder(byView), ID)!, /activated on onView:gpuRental.instances, not onStartupFinished/);
    assert.match(
      floorProblem(activationOrder(LOG.replace(line(FLOOR_ID, 'onStartupFinished'), '')), ID)!,
      /activation-floor did not activate/,
    );
    assert.match(floorProblem(activationOrder(LOG.replace(line(ID, 'onStartupFinished'), '')), ID)!, /gpu-rental did not activate/);
  });

  it('reads the time a Running Extensions row shows', () => {
    assert.equal(rowMs('Activation: 83ms'), 83);
    assert.equal(rowMs('Startup Activation: 5ms'), 5);
    assert.equal(rowMs('Activating...'), undefined);
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
});
