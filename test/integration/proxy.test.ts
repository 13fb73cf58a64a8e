import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RentPlan } from '../../src/core/rent/plan';
import { selfSignedCertificate, startFront, startProxy, type Front, type RecordingProxy } from '../harness/proxy';
import { startSocksProxy, type SocksProxy } from '../harness/socksProxy';
import { always, eventually, extensionApi, extensionLog, setApiUrl, signIn, sim } from './support';

const HOST = 'marketplace.test';

/** The instance behind a tree row, if the row is one (the tree also has rows for unreadable records). */
const instanceOf = (row: object | undefined) =>
  row && 'instance' in row ? (row as { instance: { actual_status: string | null } }).instance : undefined;

/** Through whatever http.proxy is set: signs in to `apiUrl`, searches, rents, stops and destroys with the commands. */
async function signInRentStopDestroy(apiUrl: string, label: string): Promise<void> {
  const x = await extensionApi();
  x.test.answerPrompts(always(true));
  await setApiUrl(apiUrl);
  assert.equal(await vscode.commands.executeCommand('gpuRental.setApiKey', sim.key), true, 'signed in through the proxy');
  assert.equal(x.test.session().state, 'ready');

  await vscode.commands.executeCommand('gpuRental.searchOffers', 'num_gpus>=1');
  const offer = (await x.test.offerItems()).flatMap((r) => ('offer' in r ? [r.offer] : []))[0];
  assert.ok(offer, 'offers were found');

  const plan: RentPlan = { image: 'ubuntu:22.04', disk: 10, runtype: 'ssh_proxy', label: `${label}-${Date.now().toString(36)}` };
  const id = await vscode.commands.executeCommand<number | undefined>('gpuRental.rentOffer', offer.id, plan);
  assert.ok(typeof id === 'number', 'rented');
  const item = async () => {
    await x.test.refreshInstances();
    return (await x.test.instanceItems()).find((i) => 'instance' in i && i.instance.id === id);
  };
  await eventually(async () => instanceOf(await item())?.actual_status === 'running', 'running', 30_000);
  await vscode.commands.executeCommand('gpuRental.stopInstance', id);
  await eventually(async () => instanceOf(await item())?.actual_status === 'stopped', 'stopped', 30_000);
  await vscode.commands.executeCommand('gpuRental.destroyInstance', id);
  await eventually(async () => (await item()) === undefined, 'gone from the tree', 10_000);
}

/**
 * The extension behind VS Code's http.proxy: a recording proxy and a TLS front before the run's
 * simulator, both started here in the extension host. marketplace.test is known only to the proxy,
 * so nothing can reach it but through the proxy.
 */
describe('proxy: the extension behind http.proxy', function () {
  this.timeout(120_000);
  let proxy: RecordingProxy;
  let front: Front;
  let apiUrl: string;
  const http = () => vscode.workspace.getConfiguration('http');

  before(async () => {
    await signIn();
    proxy = await startProxy({ hosts: { [HOST]: '127.0.0.1' } });
    front = await startFront({ targetPort: Number(new URL(sim.url).port), tls: selfSignedCertificate(HOST) });
    apiUrl = `https://${HOST}:${front.port}`;
    await http().update('proxy', proxy.url, vscode.ConfigurationTarget.Global);
    await http().update('proxyStrictSSL', false, vscode.ConfigurationTarget.Global);
    // The extension must see the proxy before it is pointed at a name that only the proxy resolves.
    await eventually(() => http().get('proxy') === proxy.url && http().get('proxyStrictSSL') === false, 'http.proxy to apply');
  });

  after(async () => {
    const x = await extensionApi();
    // The key stored for the proxied address goes; the next suite's reset puts the settings back.
    const session = x.test.session();
    if (session.baseUrl === apiUrl && session.hasKey) await vscode.commands.executeCommand('gpuRental.signOut');
    await front?.stop();
    await proxy?.stop();
  });

  it('signs in, searches, rents, stops and destroys through the proxy, which never sees the key', async () => {
    await signInRentStopDestroy(apiUrl, 'it-proxy');

    const ours = proxy.records.filter((r) => r.line.includes(HOST));
    const connects = proxy.connects().filter((c) => c === `${HOST}:${front.port}`);
    assert.ok(connects.length > 0, 'the proxy carried the requests');
    assert.ok(
      ours.every((r) => r.line.startsWith('CONNECT ')),
      `only CONNECT in clear: ${ours.map((r) => r.line).join(', ')}`,
    );
    assert.ok(front.connections() > 0);
    assert.equal(proxy.saw(sim.key), false, 'the proxy read the key');
    assert.equal(proxy.saw('Bearer'), false, 'the proxy read an Authorization header');
    console.log(
      `proxy: ${connects.length} CONNECT to ${HOST}, ${proxy.tunnelBytes()} bytes tunnelled, ${proxy.records.length} requests in all`,
    );
  });
});

/**
 * The same behind a SOCKS5 proxy that asks for a user name and password (socks5://user:password@,
 * as `ssh -D` with a SOCKS front or a company SOCKS gateway would be written). Every request used
 * to fail: the proxy was greeted with TLS instead of SOCKS5.
 */
describe('proxy: the extension behind a SOCKS5 http.proxy with credentials', function () {
  this.timeout(120_000);
  const user = 'it-user';
  const password = 'it-p@ss:word';
  let socks: SocksProxy;
  let front: Front;
  let apiUrl: string;
  let address: string;
  const http = () => vscode.workspace.getConfiguration('http');

  before(async () => {
    await signIn();
    socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' }, auth: { user, password } });
    front = await startFront({ targetPort: Number(new URL(sim.url).port), tls: selfSignedCertificate(HOST) });
    apiUrl = `https://${HOST}:${front.port}`;
    address = socks.url.replace('socks5://', `socks5://${user}:${encodeURIComponent(password)}@`);
    await http().update('proxy', address, vscode.ConfigurationTarget.Global);
    await http().update('proxyStrictSSL', false, vscode.ConfigurationTarget.Global);
    await eventually(() => http().get('proxy') === address && http().get('proxyStrictSSL') === false, 'http.proxy to apply');
  });

  after(async () => {
    const x = await extensionApi();
    const session = x.test.session();
    if (session.baseUrl === apiUrl && session.hasKey) await vscode.commands.executeCommand('gpuRental.signOut');
    await front?.stop();
    await socks?.stop();
  });

  it('signs in, searches, rents, stops and destroys; the proxy hears SOCKS5 and the credentials, never the key', async () => {
    await signInRentStopDestroy(apiUrl, 'it-socks');

    const ours = socks.records.filter((r) => r.target === `${HOST}:${front.port}`);
    assert.ok(ours.length > 0, 'the SOCKS5 proxy carried the requests');
    assert.ok(
      socks.records.every((r) => r.greeting === 'socks5'),
      `every connection opened with a SOCKS5 greeting: ${socks.records.map((r) => r.greeting).join(', ')}`,
    );
    assert.ok(ours.every((r) => r.method === 'password' && r.user === user && r.authenticated === true && r.reply === 0));
    assert.equal(socks.saw(sim.key), false, 'the proxy read the key');
    assert.equal(socks.saw('Bearer'), false, 'the proxy read an Authorization header');
    const log = await extensionLog();
    for (const secret of [password, encodeURIComponent(password)]) assert.ok(!log.includes(secret), 'the log names the proxy password');
    console.log(`socks5: ${ours.length} tunnels to ${HOST}, ${socks.tunnelBytes()} bytes tunnelled`);
  });
});
