// Finding an instance's Jupyter server over SSH and reaching it through a forwarded port, end to end
// against the simulator's real Jupyter server; and what a failed or empty lookup says.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { findJupyter, httpStatus } from '../../../src/core/jupyter/find';
import { jupyterUrl, servedPage } from '../../../src/core/jupyter/servers';
import { freeLocalPort, startPortForward } from '../../../src/core/ssh/forward';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { RemoteCommandError, type SshTarget } from '../../../src/core/ssh/remote';
import { JUPYTER_SERVER } from '../../marketplace/container';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, eventually, reachableInstance, simulatorForSuite, tempDirForSuite } from '../../support';

const target: SshTarget = { instanceId: 3, alias: 'gpu-rental-3', args: [] };

describe('finding Jupyter on an instance (scripted ssh)', () => {
  it('no server listed: not found, and the lookup ran the list command', async () => {
    const commands: string[] = [];
    const lookup = await findJupyter(target, 'tok', {
      run: (_t, command) => {
        commands.push(command);
        return Promise.resolve({ code: 0, stdout: '', stderr: '' });
      },
    });
    assert.deepEqual(lookup, { found: false });
    assert.match(commands[0]!, /jupyter server list --json/);
    assert.match(commands[0]!, /jupyter notebook list --json/);
  });

  it('ssh failing (255): a RemoteCommandError that says ssh could not reach it', async () => {
    await assert.rejects(
      findJupyter(target, 'tok', {
        run: () =>
          Promise.resolve({
            code: 255,
            stdout: '{"port": 8888, "token": "secret-tok-1234"}\n',
            stderr: 'ssh: connect to host x port 22: Connection refused\n',
          }),
      }),
      (e) =>
        e instanceof RemoteCommandError &&
        e.connectionFailed &&
        /Connection refused/.test(e.message) &&
        !`${e.message} ${JSON.stringify(e.result)}`.includes('secret-tok'),
    );
  });
});

(sshdAvailable() && existsSync(JUPYTER_SERVER) ? describe : describe.skip)('Jupyter through a forwarded port (simulator)', function () {
  this.timeout(90_000);
  const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2, seed: 47 });
  const home = tempDirForSuite('gpu-rental-jupyter-find-');
  let client: GpuRentalClient;
  let keyPath: string;

  before(async () => {
    ({ client } = clientFor(sim.url, DEMO_KEY));
    const key = await generateKey(join(home(), 'key'), 'jupyter-find');
    keyPath = key.privateKeyPath;
    await client.sshKeys.create(key.publicKey);
  });

  it('rent in Jupyter mode through the proxy, find the server over ssh, forward it: the API answers with the token', async () => {
    const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype: 'jupyter_proxy ssh_proxy' });
    const t = await reachableInstance(client, instanceId, keyPath);
    const ssh_port = (await client.instances.show(instanceId)).ssh_port!;
    assert.equal(t.endpoint.via, 'proxy');
    assert.equal(t.endpoint.port, ssh_port + 1, 'the Jupyter rule: SSH one port above ssh_port through the proxy');

    const lookup = await eventually(
      async () => {
        const found = await findJupyter(t, t.jupyterToken);
        return found.found ? found : undefined;
      },
      'the Jupyter server listed over ssh',
      30_000,
    );
    assert.equal(lookup.server.token, t.jupyterToken, "the instance's own server");

    const localPort = await freeLocalPort();
    const forward = await startPortForward({
      instanceId,
      alias: t.alias,
      remotePort: lookup.server.port,
      localPort,
      sshArgs: t.args,
    });
    try {
      const root = jupyterUrl(lookup.server, localPort);
      assert.match(root, new RegExp(`^http://localhost:${localPort}/\\?token=`));
      const status = new URL('api/status', root);
      status.search = new URL(root).search;
      assert.equal(await httpStatus(status.toString()), 200, 'the token is accepted through the forward');
      status.search = '?token=wrong';
      assert.equal(await httpStatus(status.toString()), 403, 'and a wrong one refused');
      // Debian's bare jupyter-server serves neither JupyterLab nor the classic tree: its root it is.
      assert.equal(await servedPage(lookup.server, localPort, (u) => httpStatus(u)), '');
    } finally {
      forward.stop();
      await client.instances.destroy(instanceId);
    }
  });
});
