/*
 * Finding the Jupyter server on an instance. Jupyter writes a runtime file for each server it
 * runs, and `list --json` prints one JSON object per server from them: jupyter-server (1.x, 2.x)
 * through `jupyter server list`, the classic notebook (5.x, 6.x) through `jupyter notebook list`.
 * An image may have either or both (notebook 6.5 pulls in jupyter-server without running it), and
 * each only lists its own servers, so all are asked and their answers merged.
 */

/** One running Jupyter server, as its runtime file describes it. Its token is a secret. */
export interface JupyterServer {
  port: number;
  /** Empty when the server runs without a token (a password, or no auth). */
  token: string;
  /** Always starts and ends with "/". */
  baseUrl: string;
  /** Served over TLS (`secure`): the local URL is https too. */
  secure: boolean;
  pid?: number;
  /** The folder it serves (`root_dir`, or `notebook_dir` for the classic notebook). */
  rootDir?: string;
}

/**
 * The command that lists the servers. Images put Jupyter in a conda or pip prefix that a
 * non-interactive ssh shell may not have on its PATH, so the usual ones are added. Errors of the
 * listers that are not there are dropped; the answer is whatever the present ones print.
 */
export const JUPYTER_LIST_COMMAND =
  'PATH="$PATH:/opt/conda/bin:/usr/local/bin:$HOME/.local/bin"; ' +
  '{ jupyter server list --json; jupyter-server list --json; jupyter notebook list --json; } 2>/dev/null; true';

/** The servers a `list --json` output names, once each; lines that are not a server's JSON are skipped. */
export function parseServerList(output: string): JupyterServer[] {
  const found: JupyterServer[] = [];
  const seen = new Set<string>();
  for (const line of output.split(/\r?\n/)) {
    const text = line.trim();
    if (!text.startsWith('{') && !text.startsWith('[')) continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue;
    }
    // jupyter-server 2.x can also print all servers as one list (`--jsonlist`).
    for (const record of Array.isArray(json) ? json : [json]) {
      const server = readServer(record);
      if (!server) continue;
      const key = `${server.port}:${server.pid ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      found.push(server);
    }
  }
  return found;
}

function readServer(value: unknown): JupyterServer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const port = typeof r['port'] === 'number' ? r['port'] : Number(r['port']);
  // A server on a unix socket (`sock`) has port 0 and cannot be forwarded as a TCP port.
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  const pid = typeof r['pid'] === 'number' && Number.isInteger(r['pid']) ? r['pid'] : undefined;
  const root = typeof r['root_dir'] === 'string' ? r['root_dir'] : typeof r['notebook_dir'] === 'string' ? r['notebook_dir'] : undefined;
  return {
    port,
    token: typeof r['token'] === 'string' ? r['token'] : '',
    baseUrl: normaliseBaseUrl(typeof r['base_url'] === 'string' ? r['base_url'] : '/'),
    secure: r['secure'] === true,
    ...(pid !== undefined ? { pid } : {}),
    ...(root !== undefined ? { rootDir: root } : {}),
  };
}

/**
 * A base URL as a path that starts and ends with "/", each segment percent-encoded once (a
 * segment already encoded stays as it is), with empty, "." and ".." segments dropped: it comes
 * from the instance and must not steer the URL anywhere but under the forwarded port.
 */
export function normaliseBaseUrl(base: string): string {
  const segments = base
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== '.' && s !== '..')
    .map((s) => encodeURIComponent(safeDecode(s)));
  return segments.length === 0 ? '/' : `/${segments.join('/')}/`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The server to open: the one whose token is the instance's own `jupyter_token` (the one the
 * service started), else the first listed.
 */
export function chooseServer(servers: readonly JupyterServer[], instanceToken: string | null | undefined): JupyterServer | undefined {
  if (instanceToken) {
    const own = servers.find((s) => s.token === instanceToken);
    if (own) return own;
  }
  return servers[0];
}

/** The page to open: JupyterLab, the classic file tree, or the server's own root. */
export type JupyterPage = 'lab' | 'tree' | '';

/** The local URL of a server forwarded to `localPort`, at `page`, with its token when it has one (query-encoded). */
export function jupyterUrl(server: Pick<JupyterServer, 'baseUrl' | 'token' | 'secure'>, localPort: number, page: JupyterPage = ''): string {
  const scheme = server.secure ? 'https' : 'http';
  const query = server.token ? `?token=${encodeURIComponent(server.token)}` : '';
  return `${scheme}://localhost:${localPort}${normaliseBaseUrl(server.baseUrl)}${page}${query}`;
}

/**
 * Which page the server serves, asking `status(url)` for the HTTP status of JupyterLab's page,
 * then the classic tree's: the first to answer 200 is it, else the server's root (a bare
 * jupyter-server, which answers there).
 */
export async function servedPage(
  server: Pick<JupyterServer, 'baseUrl' | 'token' | 'secure'>,
  localPort: number,
  status: (url: string) => Promise<number | undefined>,
): Promise<JupyterPage> {
  for (const page of ['lab', 'tree'] as const) {
    if ((await status(jupyterUrl(server, localPort, page)).catch(() => undefined)) === 200) return page;
  }
  return '';
}
