import assert from 'node:assert/strict';
import { failedPanelHtml, MainGate, type GatePorts } from '../../../src/ui/shell/gate';

/** A rest that fails to evaluate `failures` times (as a dist/main.js mid-update would), then loads. */
function gate(failures: number, startFails = false) {
  const told: string[] = [];
  let evaluated = 0;
  let started = 0;
  const ports: GatePorts<{ name: string }, string> = {
    evaluate: () => {
      evaluated++;
      if (evaluated <= failures) throw new Error("Cannot find module '/ext/dist/main.js'\nRequire stack:\n- /ext/dist/extension.js");
      return { name: 'main' };
    },
    start: (module, reason) => {
      started++;
      if (startFails) throw new Error('Services: no storage');
      return `${module.name} for ${reason}`;
    },
    notify: (detail) => told.push(detail),
    reentered: (reason) => new Error(`re-entered: ${reason}`),
  };
  return { gate: new MainGate(ports), told, counts: () => ({ evaluated, started }) };
}

const WHY = "Cannot find module '/ext/dist/main.js'";

describe('the shell: the rest of the extension could not load', () => {
  it('tells every later command and link why it cannot run, trying the load again each time', () => {
    const { gate: g, told, counts } = gate(Infinity);
    assert.deepEqual(g.load('start-up', 'first'), { failed: WHY });
    assert.deepEqual(g.load('command gpuRental.rent', 'each'), { failed: WHY }, 'Rent, after the load failed once');
    assert.deepEqual(g.load('command gpuRental.refresh', 'each'), { failed: WHY }, 'Refresh');
    assert.deepEqual(g.load('link', 'each'), { failed: WHY }, 'a link');
    assert.deepEqual(told, [WHY, WHY, WHY, WHY], 'one notification per action, each with the reason');
    assert.equal(counts().evaluated, 4, 'each action tried the load again');
    assert.equal(g.loaded, undefined);
  });

  it('has views and restored panels say why in place: a notification only for the first failure', () => {
    const { gate: g, told } = gate(Infinity);
    assert.deepEqual(g.load('view gpuRental.instances', 'first'), { failed: WHY });
    assert.deepEqual(g.load('view gpuRental.offers', 'first'), { failed: WHY }, 'the second view still learns why, to show it');
    assert.deepEqual(g.load('restore gpuRental.explorer', 'first'), { failed: WHY }, 'a restored panel learns why');
    assert.deepEqual(g.load('view gpuRental.instances', 'first'), { failed: WHY }, 'a view shown again');
    assert.deepEqual(told, [WHY], 'views polled again do not pile up notifications');
    assert.deepEqual(g.load('command gpuRental.rent', 'each'), { failed: WHY });
    assert.deepEqual(told, [WHY, WHY], 'a command after them is still told');
  });

  it('loads on a later action when the failure passed (a file replaced during an update)', () => {
    const { gate: g, told, counts } = gate(1);
    assert.deepEqual(g.load('command gpuRental.rent', 'each'), { failed: WHY });
    assert.deepEqual(g.load('command gpuRental.refresh', 'each'), { main: 'main for command gpuRental.refresh' });
    assert.deepEqual(g.load('link', 'each'), { main: 'main for command gpuRental.refresh' }, 'loaded once, kept');
    assert.deepEqual(told, [WHY]);
    assert.deepEqual(counts(), { evaluated: 2, started: 1 });
  });

  it('does not start twice a rest whose start failed, and says so on every action', () => {
    const { gate: g, told, counts } = gate(0, true);
    assert.deepEqual(g.load('start-up', 'first'), { failed: 'Services: no storage' });
    assert.deepEqual(g.load('command gpuRental.rent', 'each'), { failed: 'Services: no storage' });
    assert.deepEqual(g.load('link', 'each'), { failed: 'Services: no storage' });
    assert.deepEqual(told, ['Services: no storage', 'Services: no storage', 'Services: no storage']);
    assert.deepEqual(counts(), { evaluated: 1, started: 1 }, 'half-built parts are not doubled');
  });

  it('refuses a request its own start makes, and quotes a reason without stack, cut short', () => {
    let inner: unknown;
    const g: MainGate<object, string> = new MainGate<object, string>({
      evaluate: () => ({}),
      start: () => {
        try {
          g.load('view gpuRental.offers', 'first');
        } catch (error) {
          inner = error;
        }
        throw new Error(`${'x'.repeat(1000)}\nstack`);
      },
      notify: () => undefined,
      reentered: (reason) => new Error(`re-entered: ${reason}`),
    });
    const { failed } = g.load('start-up', 'first');
    assert.match(String(inner), /re-entered: view gpuRental.offers/);
    assert.ok(failed !== undefined && failed.length <= 300 && failed.endsWith('…') && !failed.includes('stack'), failed);
  });

  it("writes a restored panel's reason as text", () => {
    const html = failedPanelHtml('could not load (<img src=x onerror=alert(1)> & "more")');
    assert.ok(html.includes('could not load (&#60;img src=x onerror=alert(1)&#62; &#38; &#34;more&#34;)'), html);
    assert.ok(!html.includes('<img'));
    assert.match(html, /default-src 'none'/);
  });
});
