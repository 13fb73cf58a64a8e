/**
 * A running simulator instance reached over its real sshd (the test kit's reachableInstance, with
 * a key made here), and a fresh remote temp folder that is the only place tests write to on the
 * remote side.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKey } from '../../../src/core/ssh/localKeys';
import { runRemote, type SshTarget } from '../../../src/core/ssh/remote';
import { clientFor, DEMO_KEY, reachableInstance } from '../../support';

export interface TestInstance {
  readonly instanceId: number;
  readonly target: SshTarget;
  /** A folder made with `mktemp -d` on the instance. */
  readonly remoteTemp: string;
  /** Runs a shell command on the instance; rejects when it exits non-zero. */
  sh(command: string): Promise<string>;
}

/** Rents an instance of `image` on the simulator at `url`, waits for its sshd, and makes a remote temp folder. */
export async function sshInstance(url: string, home: string, image = 'ubuntu:22.04'): Promise<TestInstance> {
  const { client } = clientFor(url, DEMO_KEY);
  const keyPath = join(home, 'key');
  if (!existsSync(keyPath)) await generateKey(keyPath, 'transfer-test');
  const pub = (await readFile(`${keyPath}.pub`, 'utf8')).trim();
  const keys = await client.sshKeys.list();
  if (!keys.some((k) => k.public_key === pub)) await client.sshKeys.create(pub);
  const [offer] = await client.offers.search({
    query: { filters: { rentable: { eq: true }, direct_port_count: { gte: 1 } }, order: [], type: 'on-demand' },
    limit: 1,
  });
  const { instanceId } = await client.instances.create(offer!.id, { image, disk: 8, runtype: 'ssh_direct' });
  const reached = await reachableInstance(client, instanceId, keyPath);
  const target: SshTarget = { instanceId, alias: reached.alias, args: reached.args };
  const sh = async (command: string): Promise<string> => {
    const result = await runRemote(target, command, { timeoutMs: 30_000 });
    if (result.code !== 0) throw new Error(`${command} exited with ${result.code}: ${result.stderr}`);
    return result.stdout;
  };
  const remoteTemp = (await sh('mktemp -d')).trim();
  return { instanceId, target, remoteTemp, sh };
}
