// A Jupyter launch runs a real Jupyter server in the instance's container, with the instance's
// token, where `jupyter server list --json` in an SSH session finds it (as the extension does).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { waitForSshBanner } from '../../../src/core/ssh/probe';
import { sshEndpoint } from '../../../src/core/instances/ssh';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import type { GpuRentalClient } from '../../../src/core/api/client';
import { JUPYTER_SERVER } from '../../marketplace/container';
import { sshdAvailable } from '../../marketplace/sshd';
import { clientFor, DEMO_KEY, eventually, instanceIn, simulatorForSuite, tempDirForSuite } from '../../support';

/** The status code of GET url, or 0 when nothing answers. */
async function statusOf(url: string): Promise<number> {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0;
  }
}

interface ListedServer {
  port: number;
  token: string;
  root_dir?: string;
  notebook_dir?: string;
}

(sshdAvailable() && existsSync(JUPYTER_SERVER) ? describe : describe.skip)(
  'marketplace: a Jupyter launch runs a Jupyter server',
  function () {
    this.timeout(90_000);
    const sim = simulatorForSuite({ ssh: true, bootSeconds: 0.2, seed: 43 });
    const home = tempDirForSuite('gpu-rental-jupyter-test-');
    let client: GpuRentalClient;
    let keyPath: string;

    before(async () => {
      ({ client } = clientFor(sim.url, DEMO_KEY));
      const key = await generateKey(join(home(), 'key'), 'jupyter');
      keyPath = key.privateKeyPath;
      await client.sshKeys.create(key.publicKey);
    });

    async function launch(runtype: string): Promise<{ id: number; token: string; mapped: number | undefined; target: SshTarget }> {
      const [offer] = await client.offers.search({
        query: { filters: { rentable: { eq: true }, direct_port_count: { gte: 2 } }, order: [], type: 'on-demand' },
        limit: 1,
      });
      const { instanceId } = await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8, runtype });
      const running = await instanceIn(client, instanceId, 'running', 10_000);
      const at = sshEndpoint(running)!;
      await waitForSshBanner(at.host, at.port, { timeoutMs: 10_000, intervalMs: 50 });
      const args = ['-i', keyPath, '-p', String(at.port), '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=no'];
      const mapped = running.ports?.['8080/tcp']?.[0]?.HostPort;
      return {
        id: instanceId,
        token: running.jupyter_token!,
        mapped: mapped === undefined ? undefined : Number(mapped),
        target: { instanceId, alias: `root@${at.host}`, args: [...args, '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'] },
      };
    }

    /** What `jupyter server list --json` shows in an SSH session, once the server is up. */
    function listed(target: SshTarget): Promise<ListedServer> {
      return eventually(
        async () => {
          const result = await runRemote(target, 'jupyter server list --json', { timeoutMs: 20_000 });
          const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
          return line ? (JSON.parse(line) as ListedServer) : undefined;
        },
        'the Jupyter server in the list',
        20_000,
      );
    }

    it('answers with the token on the mapped 8080 port, refuses without it, is listed over SSH, and stops with the instance', async () => {
      const { id, token, mapped, target } = await launch('jupyter_direc ssh_direc ssh_proxy');
      assert.ok(mapped, 'a direct Jupyter launch maps 8080/tcp');
      const server = await listed(target);
      assert.equal(server.port, mapped);
      assert.equal(server.token, token);
      assert.equal(server.root_dir ?? server.notebook_dir, '/workspace');
      const base = `http://127.0.0.1:${mapped}`;
      assert.equal(await statusOf(`${base}/api/status?token=${token}`), 200);
      assert.equal(await statusOf(`${base}/api/status`), 403);
      assert.equal(await statusOf(`${base}/api/status?token=wrong`), 403);

      await client.instances.stop(id);
      await eventually(async () => (await statusOf(`${base}/api/status?token=${token}`)) === 0 || undefined, 'the server to stop', 10_000);
      await client.instances.destroy(id);
    });

    it('runs on a free port when 8080 is not mapped (a proxy launch), found through the list', async () => {
      const { id, token, mapped, target } = await launch('jupyter_proxy ssh_proxy');
      assert.equal(mapped, undefined);
      const server = await listed(target);
      assert.equal(server.token, token);
      assert.equal(await statusOf(`http://127.0.0.1:${server.port}/api/status?token=${token}`), 200);
      await client.instances.destroy(id);
      await eventually(
        async () => (await statusOf(`http://127.0.0.1:${server.port}/api/status?token=${token}`)) === 0 || undefined,
        'destroy to stop the server',
        10_000,
      );
    });
  },
);
