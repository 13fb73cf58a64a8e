import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyDelivery } from '../../src/core/notify/verify';
import { selfSignedCertificate } from '../harness/proxy';
import { eventually } from '../support/eventually';
import { DEMO_KEY } from '../support/keys';
import { expect } from './expect';
import { unfold } from './jobs';
import { control, workbenchForSuite } from './workbench';

/** One POST the receiver got: its headers and raw body. */
interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The user's receiver, on loopback with a self-signed certificate (the simulator's webhook test
 * mode delivers there, as the service delivers to a public https URL). The first attempt of each
 * outbid event answers 503, so the service retries it.
 */
class Receiver {
  readonly got: Received[] = [];
  private server: Server | undefined;
  url = '';
  /**
   * Its certificate, where an instance can read it: a container has its own /tmp, /root and
   * /workspace, but sees the rest of this machine's files (/var/tmp among them, wherever the
   * checkout is). The e2e points the instance's curl at it (CURL_CA_BUNDLE), as a user with a
   * receiver behind a private CA would.
   */
  readonly caFile = join('/var/tmp', `gpu-rental-e2e-notify-ca-${process.pid}.pem`);

  async start(): Promise<void> {
    const certificate = selfSignedCertificate('localhost');
    writeFileSync(this.caFile, certificate.cert, { mode: 0o644 });
    this.server = createServer(certificate, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const got = { headers: req.headers, body: Buffer.concat(chunks) };
        this.got.push(got);
        const outbid = /"notif_type":"outbid"/.test(got.body.toString());
        res.statusCode = outbid && req.headers['x-vast-delivery-attempt'] === '1' ? 503 : 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `https://localhost:${(this.server.address() as AddressInfo).port}/hooks/gpu`;
  }

  /** The service's deliveries (signed JSON) of one slug, every attempt. */
  deliveries(slug: string): Received[] {
    return this.got.filter((r) => r.headers['x-vast-event-id'] !== undefined && JSON.parse(r.body.toString()).notif_type === slug);
  }

  /** The instance's job-end messages (plain text). */
  jobEnds(): string[] {
    return this.got.filter((r) => r.headers['x-gpu-rental-event'] === 'job_end').map((r) => r.body.toString());
  }

  async stop(): Promise<void> {
    rmSync(this.caFile, { force: true });
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('notify me away from VS Code: a webhook for the account, and a job end with the window closed', function () {
  this.timeout(300_000);
  const receiver = new Receiver();
  before(() => receiver.start());
  after(() => receiver.stop());
  const workbench = workbenchForSuite({ bootSeconds: 3 });
  let secret = '';

  it('sets up Notify Me with a receiver on loopback: the secret is shown once, and a test delivery arrives signed', async () => {
    const wb = workbench();
    await wb.runCommand('GPU Rental: Notify Me Away from VS Code…');
    await expect(wb.quickInput().getByText(/An https:\/\/ URL you own/)).toBeVisible();
    await wb.quickInput().locator('input').first().fill(receiver.url);
    await wb.page.keyboard.press('Enter');
    await expect(wb.quickInput().getByText(/which events\?/)).toBeVisible();
    await wb.shot('e2e-notify-events', true);
    await wb.page.keyboard.press('Enter');
    const dialog = wb.dialog();
    await expect(dialog.getByText(/the signing secret of "GPU Rental"/)).toBeVisible();
    secret = (await dialog.locator('.dialog-message-detail').innerText()).trim();
    assert.match(secret, /^\S{16,}$/);
    await dialog.getByRole('button', { name: 'Copy Secret' }).click();

    await wb.runCommand('GPU Rental: Manage Notifications Away from VS Code…');
    await wb.pick('GPU Rental');
    await wb.pick('Send Test Delivery');
    await expect(await wb.notificationInCenter(/the service sent a test delivery to "GPU Rental"/), 30_000).toBeVisible();
    await wb.runCommand('Notifications: Hide Notifications');
    const [test] = receiver.deliveries('webhook_test');
    assert.ok(test, 'the receiver got the test delivery');
    assert.equal(verifyDelivery(secret, test.headers, test.body, Math.floor(Date.now() / 1000)).ok, true);
  });

  it("a job's end reaches the receiver from the instance while the window is closed", async () => {
    const wb = workbench();
    // The account's variables reach every new instance: its curl trusts the receiver's certificate.
    // (The service takes a path only as a change: a new variable's value may not hold a slash.)
    for (const key of ['CURL_CA_BUNDLE', 'SSL_CERT_FILE'])
      for (const [method, value] of [
        ['POST', 'x'],
        ['PUT', receiver.caFile],
      ] as const) {
        const res = await fetch(`${wb.sim.url}/api/v0/secrets/`, {
          method,
          headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ key, value }),
        });
        assert.equal(res.status, 200, await res.text());
      }
    await wb.rentFirstOfferToConfirmation();
    await wb.pick(/Rental: on-demand \$\d+\.\d+\/h/);
    // The bid box proposes a little over the minimum: Enter takes it, once it is there.
    await expect(wb.quickInput().getByText(/Bid in \$\/h for the GPU part/)).toBeVisible();
    await eventually(async () => /\d/.test(await wb.quickInput().locator('input').first().inputValue()), 'the bid proposed');
    await wb.page.keyboard.press('Enter');
    await wb.pick(/Rent for \$\d/);
    await expect(wb.rows('Instances', /running/), 60_000).toBeVisible();
    await wb.runCommand('GPU Rental: Run on Instance…');
    await expect(wb.quickInput().getByText(/The command to run on the instance/)).toBeVisible();
    await wb.quickInput().locator('input').first().fill('sleep 12; echo done');
    await wb.page.keyboard.press('Enter');
    // A fresh home has no SSH key: GPU Rental offers to make one, as on a new machine.
    await wb.dialog().getByRole('button', { name: 'Create Key' }).click();
    // The workspace folder is empty: nothing to upload, so no upload question.
    await wb.pick('Keep the instance running');
    await wb.pick('Run once');
    // The job's row comes under its instance once the job runs.
    await eventually(
      async () => {
        await unfold(wb.rows('Instances', /running/));
        return (await wb.rows('Instances', /sleep 12/).count()) > 0;
      },
      'the job shows under its instance',
      30_000,
    );
    // The window goes away: nothing of VS Code follows the job any more.
    const url = wb.page.url();
    await wb.page.goto('about:blank');
    try {
      await eventually(() => receiver.jobEnds().length > 0, 'a job-end message reached the receiver', 60_000);
      assert.equal(receiver.jobEnds().length, 1);
      assert.match(receiver.jobEnds()[0]!, /^GPU Rental: job ".*sleep 12.*" on instance \d+ finished \(exit 0\)$/);
      assert.ok(!receiver.jobEnds()[0]!.includes(secret), 'no secret in the message');
    } finally {
      await wb.page.goto(url, { waitUntil: 'commit', timeout: 90_000 });
      await wb.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
      await wb.openSidebar();
    }
  });

  it('an outbid caused in the simulator reaches the receiver once, signed, and a retry keeps its event id', async () => {
    const wb = workbench();
    const state = (await control(wb, 'GET', 'state')) as { instances: Array<{ id: number }> };
    await control(wb, 'POST', `instances/${state.instances[0]!.id}/outbid`, {});
    await eventually(() => receiver.deliveries('outbid').length >= 2, 'the outbid, refused once, came again', 30_000);
    const attempts = receiver.deliveries('outbid');
    const ids = new Set(attempts.map((a) => a.headers['x-vast-event-id']));
    assert.equal(ids.size, 1, 'one event, however many attempts');
    assert.deepEqual(
      attempts.map((a) => a.headers['x-vast-delivery-attempt']),
      ['1', '2'],
    );
    for (const a of attempts) assert.equal(verifyDelivery(secret, a.headers, a.body, Math.floor(Date.now() / 1000)).ok, true);
    const [event] = attempts.map((a) => JSON.parse(a.body.toString()) as { message: string });
    assert.match(event!.message, new RegExp(String(state.instances[0]!.id)));
    await expect(wb.rows('Instances', /outbid/), 30_000).toBeVisible();
  });
});
