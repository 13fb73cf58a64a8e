/**
 * The health check after a rent (afterRent.ts) as the extension wires it: a key must exist (the
 * automatic check never asks to make one), the instance's SSH entry is written and its sshd waited
 * for, the script runs over ssh; every poller snapshot may start a check, and each check's end goes
 * to `shown` (ui: the status bar, and a warning with Destroy Instance for a finding). The settings
 * are read at each use; ui hands them in with what only it has (the window's id, how ssh reaches an
 * instance).
 */
import type { Instance } from '../api/instances';
import type { Disposable } from '../events';
import type { InstancePoller } from '../instances/poller';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import { endpointFor } from '../ssh/connector';
import { findLocalKey } from '../ssh/localKeys';
import { waitForSshBanner } from '../ssh/probe';
import { runRemote, type SshTarget } from '../ssh/remote';
import { HealthAfterRent, type AfterRentResult, type AfterRentStore } from './afterRent';

/** The settings the check reads, each at its use. */
export interface AfterRentSettings {
  healthCheckAfterRent(): boolean;
  healthSpeedTestUrl(): string;
  sshIdentityFile(): string | undefined;
  sshConnectVia(): Parameters<typeof endpointFor>[1];
  sshReadyTimeoutSeconds(): number;
}

export interface AfterRentWiring {
  readonly store: AfterRentStore;
  /** This window (VS Code's session id). */
  readonly owner: string;
  readonly settings: AfterRentSettings;
  /** Writes the instance's SSH entry and says how ssh reaches it. */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly poller: Pick<InstancePoller, 'onDidUpdate'>;
  readonly logger: Logger;
  /** Shows one check's end. */
  shown(result: AfterRentResult): void;
}

/** The check after every rent made in this window, following the poller until disposed. */
export function startHealthAfterRent(w: AfterRentWiring): { health: HealthAfterRent } & Disposable {
  const health = new HealthAfterRent({
    store: w.store,
    owner: w.owner,
    enabled: () => w.settings.healthCheckAfterRent(),
    speedTestUrl: () => w.settings.healthSpeedTestUrl(),
    reach: async (instance, signal) => {
      // The automatic check never asks to make a key: without one it is not checked (Connect makes one).
      if (!(await findLocalKey(w.settings.sshIdentityFile()))) throw new Error(l10n.t('no SSH key yet; Connect makes one'));
      const target = await w.sshTarget(instance);
      const endpoint = endpointFor(instance, w.settings.sshConnectVia());
      if (endpoint) await waitForSshBanner(endpoint.host, endpoint.port, { timeoutMs: w.settings.sshReadyTimeoutSeconds() * 1000, signal });
      return target;
    },
    run: (target, script, timeoutMs, signal) => runRemote(target, script, { timeoutMs, signal }),
    now: () => Date.now(),
    logger: w.logger,
  });
  const subscription = w.poller.onDidUpdate((snapshot) => {
    for (const check of health.update(snapshot.instances)) void check.then((result) => w.shown(result));
  });
  return {
    health,
    dispose: () => {
      subscription.dispose();
      health.dispose();
    },
  };
}
