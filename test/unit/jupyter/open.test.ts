import assert from 'node:assert/strict';
import type { Instance } from '../../../src/core/api/instances';
import type { JupyterLookup } from '../../../src/core/jupyter/find';
import { notebooksNotice, reachJupyter, type ReachJupyterDeps } from '../../../src/core/jupyter/open';
import type { PortForward } from '../../../src/core/ssh/forward';
import { silentProgress } from '../../../src/core/progress';
import { MemoryLogger } from '../../support';

const inst = (over: Partial<Instance> = {}) =>
  ({
    id: 3,
    label: 'nb',
    gpu_name: 'RTX 4090',
    num_gpus: 1,
    actual_status: 'running',
    intended_status: 'running',
    ...over,
  }) as unknown as Instance;
const SERVER = { port: 8080, token: 'secret', baseUrl: '/', secure: false };
const forwardOn = (localPort: number) =>
  ({ instanceId: 3, remotePort: 8080, localPort, url: `http://localhost:${localPort}/` }) as unknown as PortForward;

/** Deps over an instance as the service has it now and what the lookup finds; records the forwards started. */
function fakeDeps(now: Instance, lookup: JupyterLookup, existing?: PortForward) {
  const started: number[] = [];
  const logger = new MemoryLogger();
  const deps: ReachJupyterDeps = {
    show: () => Promise.resolve(now),
    sshTarget: (i) => Promise.resolve({ instanceId: i.id, alias: `gpu-rental-${i.id}`, args: [] }),
    progress: silentProgress(),
    lookup: () => Promise.resolve(lookup),
    forwards: { find: () => existing, add: () => undefined },
    startForward: () => (started.push(9000), Promise.resolve(forwardOn(9000))),
    // JupyterLab answers; the classic tree is never asked.
    status: (url) => Promise.resolve(url.includes('/lab') ? 200 : 404),
    logger,
  };
  return { deps, started, logger };
}

describe('jupyter: opening an instance’s Jupyter', () => {
  it('a stopped instance (as it is now, not as listed) is refused with what to do, and ssh is not tried', async () => {
    const { deps, started } = fakeDeps(inst({ actual_status: 'stopped', intended_status: 'stopped' }), { found: false });
    const result = await reachJupyter(deps, inst());
    assert.deepEqual(result, {
      kind: 'notRunning',
      instanceId: 3,
      notice: 'GPU Rental: "nb" (RTX 4090, #3) is stopped; start it, then open Jupyter again.',
      offerLogs: false,
    });
    assert.deepEqual(started, []);
  });

  it('no server listed: why depends on the launch mode, and the logs are offered', async () => {
    const jupyterMode = await reachJupyter(fakeDeps(inst({ image_runtype: 'jupyter' }), { found: false }).deps, inst());
    assert.ok(jupyterMode.kind === 'notRunning' && jupyterMode.offerLogs);
    assert.match(jupyterMode.notice, /launched in a Jupyter mode, so it may still be starting/);
    const sshMode = await reachJupyter(fakeDeps(inst({ image_runtype: 'ssh' }), { found: false }).deps, inst());
    assert.match(sshMode.kind === 'notRunning' ? sshMode.notice : '', /not launched in a Jupyter launch mode: rent with Jupyter/);
  });

  it('found: forwards it, opens the page it serves with its token, and keeps the token out of the log', async () => {
    const { deps, started, logger } = fakeDeps(inst(), { found: true, server: SERVER, count: 1 });
    const result = await reachJupyter(deps, inst());
    assert.equal(result.kind, 'reached');
    assert.deepEqual(started, [9000]);
    if (result.kind !== 'reached') return;
    assert.equal(result.page, 'lab');
    assert.equal(result.browserUrl, 'http://localhost:9000/lab?token=secret');
    assert.equal(result.serverUrl, 'http://localhost:9000/?token=secret');
    assert.match(
      result.question,
      /^GPU Rental: Jupyter on "nb" \(RTX 4090, #3\) is forwarded to http:\/\/localhost:9000\/\. Open it in a browser/,
    );
    assert.ok(!logger.lines.join('\n').includes('secret'));
  });

  it("reuses this window's forward to the same server instead of starting another", async () => {
    const { deps, started } = fakeDeps(inst(), { found: true, server: SERVER, count: 1 }, forwardOn(8080));
    const result = await reachJupyter(deps, inst());
    assert.deepEqual(started, []);
    assert.equal(result.kind === 'reached' && result.localPort, 8080);
  });

  it('use for notebooks: says where to paste, or that the Jupyter extension is missing', () => {
    assert.equal(notebooksNotice('nb', true).severity, 'info');
    const missing = notebooksNotice('nb', false);
    assert.equal(missing.severity, 'warning');
    assert.match(missing.text, /the Jupyter extension \(ms-toolsai\.jupyter\) is not installed/);
  });
});
