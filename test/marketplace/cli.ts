/**
 * npm run marketplace -- --port 0 --api-key KEY --boot-seconds N [--state FILE] [--seed N]
 *                        [--credit N] [--latency MS] [--fault KIND[:COUNT[:PARAM]]]... [--offers N]
 *                        [--no-ssh] [--no-onstart] [--onstart-path DIR]... [--billing-history-days N]
 *                        [--instances N] [--clusters N] [--webhook-test-mode]
 *
 * The first account starts with 120 days of billing history (charges and invoices), unless
 * `--billing-history-days` says otherwise (0: none). `--instances N` gives it N instances rented
 * over the last hours (`--clusters K` of them in clusters), for benchmarks at scale; with sshd on,
 * each running one gets a container, so pair it with `--no-ssh --no-onstart`. `--webhook-test-mode`
 * lets notification webhooks reach loopback and private addresses with a self-signed certificate
 * (the service refuses such targets; see webhooks.ts); test/support's `spawnSimulator` passes it.
 *
 * Prints one line, `Marketplace listening on http://127.0.0.1:PORT`, once it listens.
 * SIGINT or SIGTERM stops it (state saved) and exits 0.
 */
import { parseFaultFlag, type FaultRuleInput } from './faults';
import { startMarketplace, type MarketplaceOptions } from './server';
import { SSHD, sshdAvailable } from './sshd';
import { containersAvailable } from './container';
import { releasePath } from './mirror';
import { CODE_SERVER_MIRROR } from '../../scripts/paths';

const USAGE = `usage: marketplace [--port N] [--api-key KEY] [--boot-seconds N] [--state FILE] [--seed N]
                   [--credit USD] [--latency MS] [--fault KIND[:COUNT[:PARAM]]]... [--offers N] [--log-ready-ms MS] [--no-ssh]
                   [--no-onstart] [--onstart-path DIR]... [--billing-history-days N (default 120; 0: none)]
                   [--instances N] [--clusters N (of those instances, in clusters on overlay networks)]
                   [--webhook-test-mode (webhooks may reach loopback/private addresses, self-signed certificates)]
fault kinds: latency, rate_limit (429), server_error (500/502/503/504), reset, truncated, malformed,
             slow_boot, boot_failure; COUNT 0 = until cleared; PARAM = ms, status or Retry-After seconds`;

/** Flags that take a number, and the option each sets. */
const NUMBER_FLAGS: Readonly<
  Record<
    string,
    'port' | 'bootSeconds' | 'seed' | 'credit' | 'latencyMs' | 'offerCount' | 'logReadyMs' | 'billingHistoryDays' | 'instances' | 'clusters'
  >
> = {
  '--port': 'port',
  '--boot-seconds': 'bootSeconds',
  '--seed': 'seed',
  '--credit': 'credit',
  '--latency': 'latencyMs',
  '--offers': 'offerCount',
  '--log-ready-ms': 'logReadyMs',
  '--billing-history-days': 'billingHistoryDays',
  '--instances': 'instances',
  '--clusters': 'clusters',
};

function parse(argv: string[]): MarketplaceOptions {
  const options: MarketplaceOptions = {};
  const faults: FaultRuleInput[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    const numeric = NUMBER_FLAGS[flag];
    if (numeric) {
      const text = value();
      const n = Number(text);
      if (text === undefined || text === '' || !Number.isFinite(n)) throw new Error(`${flag} needs a number`);
      options[numeric] = n;
      continue;
    }
    switch (flag) {
      case '--api-key':
        options.apiKey = value();
        break;
      case '--state':
        options.stateFile = value();
        break;
      case '--fault':
        faults.push(parseFaultFlag(value() ?? ''));
        break;
      case '--no-ssh':
        options.ssh = false;
        break;
      case '--no-onstart':
        options.onstart = false;
        break;
      case '--webhook-test-mode':
        options.webhookTestMode = true;
        break;
      case '--onstart-path':
        (options.onstartPath ??= []).push(value() ?? '');
        break;
      case '--help':
      case '-h':
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  options.faults = faults;
  // A real sshd per running instance, unless turned off or openssh-server is missing.
  options.ssh ??= sshdAvailable();
  // Start-up scripts run as local processes, as the service runs them in the container.
  options.onstart ??= true;
  // Months of charges and invoices to read, as an account of some standing has.
  options.billingHistoryDays ??= 120;
  // A code-server release mirror under /__mirror/, built from the install of scripts/codeServer.ts.
  options.codeServerMirror ??= CODE_SERVER_MIRROR;
  return options;
}

async function main(): Promise<void> {
  let options: MarketplaceOptions;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    console.error(`marketplace: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const sim = await startMarketplace(options);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    sim.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('marketplace: failed to stop cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  console.log(`Marketplace listening on ${sim.url}`);
  // On stderr: stdout carries only the listening line, which scripts read.
  console.error(
    options.ssh
      ? 'SSH: each running instance gets a real sshd on 127.0.0.1 (proxy and direct ports).'
      : `SSH is off${sshdAvailable() ? ' (--no-ssh)' : `: ${SSHD} is missing (install openssh-server)`}; instances have addresses but nothing answers on them.`,
  );
  if (options.ssh || options.onstart)
    console.error(
      containersAvailable()
        ? 'Instances: each is a container (own /root, /workspace, /tmp and PID namespace; disk a tmpfs of its size).'
        : 'Instances: plain process groups with HOME in a folder of their own (containers need root and unshare).',
    );
  console.error(
    options.onstart
      ? `Start-up scripts: run with bash in each instance's container, with CONTAINER_ID and CONTAINER_API_KEY${options.onstartPath?.length ? `; PATH starts with ${options.onstartPath.join(':')}` : ''}.`
      : 'Start-up scripts are off (--no-onstart): they are only logged.',
  );
  if (options.webhookTestMode)
    console.error('Webhooks: test mode (deliveries may go to loopback and private addresses; self-signed certificates accepted).');
  if (options.codeServerMirror)
    console.error(
      `code-server release mirror: ${sim.url}${releasePath(options.codeServerMirror.version)} (and .sha256; built on the first download).`,
    );
}

main().catch((error: unknown) => {
  console.error('marketplace:', error instanceof Error ? error.message : error);
  process.exit(1);
});
