// What every top-level suite starts from, whatever ran before it: index.ts runs resetForSuite
// before each one's own hooks, so a suite passes alone, in any order, and after any other.
import * as vscode from 'vscode';
import { always, api, control, eventually, EXTENSION_ID, extensionApi, setApiUrl, signIn, sim } from './support';

/** VS Code settings a suite changes besides GPU Rental's own (the proxy suite). */
const OTHER_KEYS = ['http.proxy', 'http.proxyStrictSSL'];

/** The user settings as the run began (the runner's: the simulator's URL, a short poll interval). */
let runSettings: Map<string, unknown> | undefined;

function settingKeys(): string[] {
  const ext = vscode.extensions.getExtension<unknown>(EXTENSION_ID);
  const manifest = ext?.packageJSON as { contributes?: { configuration?: { properties?: object } } } | undefined;
  const own = Object.keys(manifest?.contributes?.configuration?.properties ?? {});
  return [...own, ...OTHER_KEYS];
}

const userValue = (key: string) => vscode.workspace.getConfiguration().inspect(key)?.globalValue;

/** The run account's id, for its quirks. */
let accountId: number | undefined;

/**
 * Back to the run's defaults: no simulator faults, corrupted records or account quirks; the user
 * settings as the run began (so the base URL is the simulator's); the default profile only;
 * signed in with the run's full-access key; the offer search cleared; the real prompts and
 * Remote-SSH handoff. Instances a suite rented stay (each suite cleans up its own).
 */
export async function resetForSuite(): Promise<void> {
  runSettings ??= new Map(settingKeys().map((k) => [k, userValue(k)]));
  await control('DELETE', 'faults');
  await control('DELETE', 'corrupt');
  accountId ??= ((await api('GET', '/api/v0/users/current/', sim.key)) as { id: number }).id;
  await control('POST', `accounts/${accountId}/quirks`, { two_factor: false, withhold: [] });

  const x = await extensionApi();
  const restore = x.test.answerPrompts(always(true));
  try {
    // A rent on its way keeps the window on its account: let it finish first.
    await eventually(() => !x.test.rents().inProgress, 'a rent in progress to finish', 30_000);
    if (x.test.session().profileId !== 'default') await x.test.switchProfile('default');
    for (const id of x.test.session().profileIds.filter((p) => p !== 'default'))
      await vscode.commands.executeCommand('gpuRental.removeProfile', id);
  } finally {
    restore();
  }
  for (const [key, value] of runSettings) {
    if (JSON.stringify(userValue(key)) !== JSON.stringify(value))
      await vscode.workspace.getConfiguration().update(key, value, vscode.ConfigurationTarget.Global);
  }
  await setApiUrl(sim.url);
  await signIn();
  const search = x.test.stored('offerSearch');
  if (search.query !== '') await vscode.commands.executeCommand('gpuRental.clearOfferFilters');
  if (search.sort !== 'value') await vscode.commands.executeCommand('gpuRental.sortOffers', 'value');
  x.test.restoreDefaults();
}
