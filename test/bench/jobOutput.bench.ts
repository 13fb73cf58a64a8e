// npm run bench (part): a job's output reaching VS Code. A job on a simulator instance (a real sshd
// on this machine) prints a line every 100 ms with the time it printed it; the follower that the
// extension's terminal reads from (JobFollower, over ssh with tail -F) receives them. Reports the
// delay from print to arrival per line: median, 90th percentile and worst over 60 lines
// (target: median <= 500 ms). Both ends read this machine's clock.
// Needs root and an OpenSSH sshd (/usr/sbin/sshd, or GPU_RENTAL_SSHD); skipped otherwise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshEndpoint } from '../../src/core/instances/ssh';
import { JobFollower } from '../../src/core/jobs/follower';
import { startJob } from '../../src/core/jobs/remoteJobs';
import { newJobId } from '../../src/core/jobs/scripts';
import { generateKey } from '../../src/core/ssh/localKeys';
import { waitForSshBanner } from '../../src/core/ssh/probe';
import type { SshTarget } from '../../src/core/ssh/remote';
import { sshdAvailable } from '../marketplace/sshd';
import { clientFor, DEMO_KEY, instanceIn, startSimulator } from '../support';

const LINES = 60;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const at = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

async function main(): Promise<void> {
  if (!sshdAvailable() || process.getuid?.() !== 0) {
    console.log('jobOutput: skipped (needs root and an OpenSSH sshd)');
    return;
  }
  const home = mkdtempSync(join(tmpdir(), 'gpu-rental-job-bench-'));
  const sim = await startSimulator({ ssh: true, bootSeconds: 0.2, seed: 41 });
  try {
    const { client } = clientFor(sim.url, DEMO_KEY);
    const key = await generateKey(join(home, 'key'), 'bench');
    await client.sshKeys.create(key.publicKey);
    const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
    const id = (await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
    const endpoint = sshEndpoint(await instanceIn(client, id, 'running', 10_000))!;
    await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: 10_000, intervalMs: 50 });
    const target: SshTarget = {
      instanceId: id,
      alias: `root@${endpoint.host}`,
      args: ['-i', key.privateKeyPath, '-p', String(endpoint.port), '-o', 'IdentitiesOnly=yes'],
    };
    const withHostKeys: SshTarget = {
      ...target,
      args: [...target.args, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
    };
    const jobsDir = join(home, 'jobs');
    const jobId = newJobId(Date.now(), () => 0.5);
    // The job waits 2 s first so the follower is attached and printing is what is measured, not ssh's connect.
    const command = `sleep 2; for i in $(seq 1 ${LINES}); do echo "t=$(date +%s%3N)"; sleep 0.1; done`;
    await startJob(withHostKeys, command, { jobId, cwd: jobsDir, label: 'bench', stopAtEnd: false, jobsDir });

    const delays: number[] = [];
    let pending = '';
    const follower = new JobFollower({
      target: () => Promise.resolve(withHostKeys),
      jobId,
      jobsDir,
      onData: (chunk) => {
        const now = Date.now();
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) {
          const printed = Number(/^t=(\d+)$/.exec(line)?.[1]);
          if (Number.isFinite(printed)) delays.push(now - printed);
        }
      },
      onEnd: () => {},
    });
    await follower.start();
    console.log(
      `jobOutput: print to follower over ssh, ${delays.length} lines: median ${at(delays, 0.5)} ms, p90 ${at(delays, 0.9)} ms, worst ${at(delays, 1)} ms (target: median <= 500 ms)`,
    );
    await client.instances.destroy(id);
  } finally {
    await sim.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
