// npm run bench (part): a job's output reaching VS Code. A job on a simulator instance (a real sshd
// on this machine) prints a line every 100 ms with the time it printed it; the follower that the
// extension's terminal reads from (JobFollower, over ssh with tail -F) receives them. Reports the
// delay from print to arrival per line: median, 90th percentile and worst over 60 lines
// (target: median <= 500 ms). Both ends read this machine's clock.
// Needs root and an OpenSSH sshd (/usr/sbin/sshd, or GPU_RENTAL_SSHD); skipped otherwise.
import { join } from 'node:path';
import { JobFollower } from '../../src/core/jobs/follower';
import { startJob } from '../../src/core/jobs/remoteJobs';
import { newJobId } from '../../src/core/jobs/scripts';
import { generateKey } from '../../src/core/ssh/localKeys';
import { clientFor, DEMO_KEY, reachableInstance, sshBench } from '../support';

const LINES = 60;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const at = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

sshBench('jobOutput', { seed: 41 }, async (sim, home) => {
  const { client } = clientFor(sim.url, DEMO_KEY);
  const key = await generateKey(join(home, 'key'), 'bench');
  await client.sshKeys.create(key.publicKey);
  const [offer] = await client.offers.search({ query: { filters: { rentable: { eq: true } }, order: [], type: 'on-demand' }, limit: 1 });
  const id = (await client.instances.create(offer!.id, { image: 'ubuntu:22.04', disk: 8 })).instanceId;
  const target = await reachableInstance(client, id, key.privateKeyPath);
  const jobsDir = join(home, 'jobs');
  const jobId = newJobId(Date.now(), () => 0.5);
  // The job waits 2 s first so the follower is attached and printing is what is measured, not ssh's connect.
  const command = `sleep 2; for i in $(seq 1 ${LINES}); do echo "t=$(date +%s%3N)"; sleep 0.1; done`;
  await startJob(target, command, { jobId, cwd: jobsDir, label: 'bench', stopAtEnd: false, jobsDir });

  const delays: number[] = [];
  let pending = '';
  const follower = new JobFollower({
    target: () => Promise.resolve(target),
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
});
