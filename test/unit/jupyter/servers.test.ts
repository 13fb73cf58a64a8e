import assert from 'node:assert/strict';
import { InstanceSchema } from '../../../src/core/api/instances';
import { presentInstance } from '../../../src/core/instances/present';
import { chooseServer, jupyterUrl, normaliseBaseUrl, parseServerList, servedPage } from '../../../src/core/jupyter/servers';

/** `jupyter-server list --json` of Debian's jupyter-server 1.23.3, as printed (one server). */
const SERVER_1X =
  '{"base_url": "/", "hostname": "127.0.0.1", "password": false, "pid": 1863, "port": 18931, "root_dir": "/tmp/h5jup", "secure": false, "sock": "", "token": "abc123tok", "url": "http://127.0.0.1:18931/", "version": "1.23.3"}\n';

/** `jupyter notebook list --json` of the classic notebook 6.x: `notebook_dir` instead of `root_dir`, no version. */
const NOTEBOOK_6X =
  '{"base_url": "/", "hostname": "localhost", "notebook_dir": "/root", "password": false, "pid": 41, "port": 8888, "secure": false, "sock": "", "token": "5f2a9c0e7d1b", "url": "http://localhost:8888/"}\n' +
  '{"base_url": "/user/x/", "hostname": "0.0.0.0", "notebook_dir": "/workspace", "password": false, "pid": 77, "port": 8080, "secure": true, "sock": "", "token": "instancetoken42", "url": "https://0.0.0.0:8080/user/x/"}\n';

describe('Jupyter server list', () => {
  it('reads jupyter-server 1.x output: port, token, base URL, root folder', () => {
    assert.deepEqual(parseServerList(SERVER_1X), [
      { port: 18931, token: 'abc123tok', baseUrl: '/', secure: false, pid: 1863, rootDir: '/tmp/h5jup' },
    ]);
  });

  it('reads notebook 6.x output, one server per line, notebook_dir as the root and secure kept', () => {
    const servers = parseServerList(NOTEBOOK_6X);
    assert.deepEqual(
      servers.map((s) => [s.port, s.token, s.baseUrl, s.secure, s.rootDir]),
      [
        [8888, '5f2a9c0e7d1b', '/', false, '/root'],
        [8080, 'instancetoken42', '/user/x/', true, '/workspace'],
      ],
    );
  });

  it('merges the listers: the same server listed twice is one; noise, errors and socket servers are skipped', () => {
    const noise = 'Currently running servers:\nhttp://127.0.0.1:18931/?token=abc123tok :: /tmp/h5jup\n{not json\n';
    const socket = '{"base_url": "/", "port": 0, "sock": "/tmp/j.sock", "token": "t", "pid": 9}\n';
    const servers = parseServerList(SERVER_1X + noise + socket + SERVER_1X + '\r\n');
    assert.equal(servers.length, 1);
    assert.equal(servers[0]!.port, 18931);
  });

  it('reads a --jsonlist array, and a server without a token', () => {
    const list = JSON.stringify([
      { base_url: '/', port: 9000, pid: 1, token: '' },
      { base_url: '/', port: 9001, pid: 2 },
    ]);
    assert.deepEqual(
      parseServerList(list).map((s) => [s.port, s.token]),
      [
        [9000, ''],
        [9001, ''],
      ],
    );
  });

  it('nothing listed: no server', () => {
    assert.deepEqual(parseServerList(''), []);
    assert.equal(chooseServer([], 'x'), undefined);
  });

  it("prefers the server whose token is the instance's jupyter_token, else the first", () => {
    const servers = parseServerList(NOTEBOOK_6X);
    assert.equal(chooseServer(servers, 'instancetoken42')?.port, 8080);
    assert.equal(chooseServer(servers, 'someone-elses')?.port, 8888);
    assert.equal(chooseServer(servers, undefined)?.port, 8888);
  });
});

describe('Jupyter URL', () => {
  it('normalises the base URL to one leading and trailing slash, segments encoded once, no dot segments', () => {
    assert.equal(normaliseBaseUrl(''), '/');
    assert.equal(normaliseBaseUrl('/'), '/');
    assert.equal(normaliseBaseUrl('user/x'), '/user/x/');
    assert.equal(normaliseBaseUrl('//user//x//'), '/user/x/');
    assert.equal(normaliseBaseUrl('/a b/'), '/a%20b/');
    assert.equal(normaliseBaseUrl('/a%20b/'), '/a%20b/');
    assert.equal(normaliseBaseUrl('/../../etc/./x/'), '/etc/x/');
    assert.equal(normaliseBaseUrl('/@evil.example/?q#f'), '/%40evil.example/%3Fq%23f/');
  });

  it('builds localhost URLs with the page and the token query-encoded', () => {
    const server = { baseUrl: '/user/x', token: 'a b&c=d/+', secure: false };
    assert.equal(jupyterUrl(server, 4321, 'lab'), 'http://localhost:4321/user/x/lab?token=a%20b%26c%3Dd%2F%2B');
    assert.equal(jupyterUrl({ ...server, token: '' }, 4321, 'tree'), 'http://localhost:4321/user/x/tree');
    assert.equal(jupyterUrl({ baseUrl: '/', token: 't', secure: true }, 80), 'https://localhost:80/?token=t');
    const url = new URL(jupyterUrl(server, 4321, 'lab'));
    assert.equal(url.hostname, 'localhost');
    assert.equal(url.searchParams.get('token'), 'a b&c=d/+');
  });

  it('opens the page the server serves: lab, else tree, else its root', async () => {
    const server = { baseUrl: '/', token: 't', secure: false };
    const answering =
      (ok: string[]) =>
      (url: string): Promise<number | undefined> =>
        Promise.resolve(ok.some((p) => new URL(url).pathname === `/${p}`) ? 200 : 404);
    assert.equal(await servedPage(server, 1, answering(['lab', 'tree'])), 'lab');
    assert.equal(await servedPage(server, 1, answering(['tree'])), 'tree');
    assert.equal(await servedPage(server, 1, answering([])), '');
    assert.equal(await servedPage(server, 1, () => Promise.reject(new Error('reset'))), '');
  });
});

describe('Open Jupyter in the Instances view', () => {
  const row = (image_runtype: string, actual_status = 'running') =>
    presentInstance(
      InstanceSchema.parse({
        id: 5,
        actual_status,
        intended_status: actual_status,
        image_runtype,
        ssh_host: 'ssh5.example.net',
        ssh_port: 20000,
      }),
      { nowMs: 0 },
    ).contextValue.split('+');

  it('is offered on a running Jupyter launch, through the proxy or direct', () => {
    assert.ok(row('jupyter_proxy ssh_proxy').includes('jupyter'));
    assert.ok(row('jupyter_direc ssh_direc ssh_proxy').includes('jupyter'));
  });

  it('is not offered on an SSH launch, nor on a stopped Jupyter launch', () => {
    assert.ok(!row('ssh_direc ssh_proxy').includes('jupyter'));
    assert.ok(!row('jupyter_proxy ssh_proxy', 'stopped').includes('jupyter'));
  });
});
