import assert from 'node:assert/strict';
import { LoginPages } from '../../../src/core/browserWorkspace/loginPage';
import type { Instance } from '../../../src/core/api/instances';
import { ApiError } from '../../../src/core/api/errors';
import { endedNotice, endedPhase } from '../../../src/core/browserWorkspace/sessions';

const PASSWORD = 'aa11bb22cc33dd44ee55ff66';

describe('browser workspace: the one-time sign-in page', () => {
  let pages: LoginPages;
  beforeEach(() => (pages = new LoginPages(200)));
  afterEach(() => pages.dispose());

  it('serves a page that posts the password to the server’s login, once; a second load finds nothing', async () => {
    const url = await pages.add({
      action: 'http://127.0.0.1:9100/login?to=%2F%3Ffolder%3D%252Froot',
      password: PASSWORD,
      title: '<b>"x"</b>',
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/open\/[0-9a-f]{32}$/);
    const first = await fetch(url);
    assert.equal(first.status, 200);
    const csp = first.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action http:\/\/127\.0\.0\.1:9100/);
    assert.equal(first.headers.get('cache-control'), 'no-store');
    assert.equal(first.headers.get('referrer-policy'), 'no-referrer');
    const html = await first.text();
    assert.match(html, /<form method="post" action="http:\/\/127\.0\.0\.1:9100\/login\?to=%2F%3Ffolder%3D%252Froot">/);
    assert.match(html, new RegExp(`name="password" value="${PASSWORD}"`));
    assert.ok(html.includes('&#60;b&#62;&#34;x&#34;&#60;/b&#62;'), 'the title is text, not markup');
    const second = await fetch(url);
    assert.equal(second.status, 404);
    assert.ok(!(await second.text()).includes(PASSWORD));
    assert.equal(pages.waiting, 0);
  });

  it('an unknown or guessed path is a 404 without the password, and a page expires unused', async () => {
    const url = await pages.add({ action: 'http://127.0.0.1:9100/login', password: PASSWORD, title: 't' }, 50);
    const base = new URL(url).origin;
    for (const path of ['/', '/open/', `/open/${'0'.repeat(32)}`, `${new URL(url).pathname}/x`]) {
      const res = await fetch(base + path);
      assert.equal(res.status, 404, path);
      assert.ok(!(await res.text()).includes(PASSWORD));
    }
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(pages.waiting, 0);
    assert.equal((await fetch(url)).status, 404, 'an expired page is gone, and the server says so a while');
    await new Promise((r) => setTimeout(r, 300));
    await assert.rejects(fetch(url), 'the server closes once no page waits');
  });
});

describe('browser workspace: when one ends by itself', () => {
  it('asks the service what became of the instance: the list may be a poll behind the stop', async () => {
    const now = (actual: string, intended: string) => () =>
      Promise.resolve({ actual_status: actual, intended_status: intended } as unknown as Instance);
    assert.equal(await endedPhase(now('running', 'stopped'), 7, 'running'), 'stopping');
    assert.equal(await endedPhase(now('running', 'running'), 7, 'running'), 'running');
    const gone = () =>
      Promise.reject(new ApiError({ kind: 'not_found', action: 'show', method: 'GET', path: '/instances/7/', status: 404 }));
    assert.equal(await endedPhase(gone, 7, 'running'), 'gone');
    const offline = () => Promise.reject(new ApiError({ kind: 'network', action: 'show', method: 'GET', path: '/instances/7/' }));
    assert.equal(await endedPhase(offline, 7, 'stopped'), 'stopped', 'the list’s phase when the service cannot be asked');
  });

  it('says why by what became of the instance', () => {
    assert.match(endedNotice('"a"', 'stopped').text, /"a" is stopped, so its VS Code in the browser has ended\. Unsaved changes/);
    assert.match(endedNotice('"a"', 'gone').text, /"a" was destroyed/);
    assert.match(endedNotice('"a"', 'running').text, /connection to the VS Code in the browser on "a" dropped\. Open in Browser again/);
  });
});
