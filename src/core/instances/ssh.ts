import { isIP } from 'node:net';
import type { Instance } from '../api/instances';
import { l10n } from '../l10n';
import { shellQuote } from '../shell';
import { visibleText } from '../text';

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** Letters, digits and hyphens; never a leading "-" (ssh would read an option). */
const DNS_LABEL = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;

/**
 * The one grammar for a host that reaches ssh, its config or a shell: an IPv4 dotted quad, a bare
 * IPv6 address (no zone, no brackets), or a DNS name of at most 253 characters. It leaves no
 * room for a space, a quote, a line break, `%` or `$` (which ssh expands), a shell metacharacter,
 * or a leading "-".
 */
export function isSshHost(host: string): boolean {
  if (IPV4.test(host)) return true;
  if (host.includes(':')) return /^[0-9A-Fa-f:.]+$/.test(host) && isIP(host) === 6;
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split('.');
  // All-numeric labels are an IPv4 address or nothing: "1.2.3.999" is not a name.
  if (labels.every((l) => /^\d+$/.test(l))) return false;
  return labels.every((l) => DNS_LABEL.test(l));
}

export interface SshEndpoint {
  host: string;
  port: number;
  /** `direct` reaches the machine's public address; `proxy` goes through the service's SSH proxy. */
  via: 'direct' | 'proxy';
}

/** The instance fields an SSH address is made of, each named as the service names it. */
export type SshField = 'public_ipaddr' | 'ssh_host' | 'ssh_port' | 'ports["22/tcp"].HostPort';

/**
 * The service sent an address that cannot safely reach ssh, a shell, the clipboard or the SSH
 * config. The message names the field and shows the value truncated, without control characters.
 */
export class UnusableSshAddress extends Error {
  constructor(
    readonly field: SshField,
    value: unknown,
    what: string,
  ) {
    super(
      l10n.t(
        "The service sent an unusable {0} ({1} {2}). Refresh the instances and try again; if it stays so, the service's record of this instance is wrong: contact its support.",
        field,
        describeValue(value),
        what,
      ),
    );
    this.name = 'UnusableSshAddress';
  }
}

const SHOWN_CHARS = 40;

/** A value for a message: quoted, control and bidirectional characters taken out, at most 40 characters. */
function describeValue(value: unknown): string {
  if (typeof value !== 'string') return typeof value === 'number' ? String(value) : `a ${value === null ? 'null' : typeof value}`;
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, '');
  const chars = [...clean];
  // visibleText too: any other hidden character shown as its escape, and no link syntax (the service's text).
  return JSON.stringify(visibleText(chars.length > SHOWN_CHARS ? `${chars.slice(0, SHOWN_CHARS).join('')}…` : clean, SHOWN_CHARS + 1));
}

/** The host, trimmed, or an UnusableSshAddress naming the field. */
export function checkSshHost(value: unknown, field: SshField): string {
  if (typeof value !== 'string') throw new UnusableSshAddress(field, value, l10n.t('is not a host name or address'));
  const host = value.trim();
  if (!isSshHost(host)) throw new UnusableSshAddress(field, value, l10n.t('is not a host name or address'));
  return host;
}

/** A TCP port: an integer 1..65535, or a string of digits that is one. */
export function checkSshPort(value: unknown, field: SshField): number {
  const port = typeof value === 'string' && /^\s*\d{1,5}\s*$/.test(value) ? Number(value) : value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UnusableSshAddress(field, value, l10n.t('is not a port from 1 to 65535'));
  }
  return port;
}

type SshFields = Pick<Instance, 'public_ipaddr' | 'ports' | 'ssh_host' | 'ssh_port' | 'image_runtype'>;

/**
 * Whether the instance was launched in a Jupyter mode (`jupyter`, `jupyter_proxy`,
 * `jupyter_direc ssh_direc ssh_proxy`, ...). The service's proxy then reaches its sshd one port
 * above `ssh_port`, as the service's own CLI computes it (its ssh-url).
 */
export function launchedWithJupyter(instance: Pick<Instance, 'image_runtype'>): boolean {
  return typeof instance.image_runtype === 'string' && /jupyter/i.test(instance.image_runtype);
}

/**
 * The proxy port for SSH: `ssh_port`, plus one for an instance launched in a Jupyter mode.
 * Undefined when `ssh_port` is not a port, or the port above it is not.
 */
export function proxySshPort(instance: Pick<Instance, 'ssh_port' | 'image_runtype'>): number | undefined {
  const port = instance.ssh_port;
  if (typeof port !== 'number' || !Number.isInteger(port)) return undefined;
  const ssh = launchedWithJupyter(instance) ? port + 1 : port;
  return ssh >= 1 && ssh <= 65535 ? ssh : undefined;
}

/**
 * The service's SSH proxy for the instance, checked; undefined until the service has one. An
 * instance launched in a Jupyter mode is reached one port above `ssh_port`.
 */
export function proxyEndpoint(instance: Pick<Instance, 'ssh_host' | 'ssh_port' | 'image_runtype'>): SshEndpoint | undefined {
  if (!present(instance.ssh_host) || !present(instance.ssh_port)) return undefined;
  const host = checkSshHost(instance.ssh_host, 'ssh_host');
  const port = checkSshPort(instance.ssh_port, 'ssh_port');
  if (!launchedWithJupyter(instance)) return { host, port, via: 'proxy' };
  return { host, port: checkSshPort(port + 1, 'ssh_port'), via: 'proxy' };
}

/**
 * Where to reach an instance over SSH. Like the real CLI, the direct address is preferred when the
 * instance maps port 22; otherwise the service's proxy host and port (one above `ssh_port` for an
 * instance launched in a Jupyter mode). Undefined while the instance has neither; an
 * UnusableSshAddress when the service sent one that is not a host or a port.
 */
export function sshEndpoint(instance: SshFields): SshEndpoint | undefined {
  const mapped = instance.ports?.['22/tcp']?.[0]?.HostPort;
  if (present(instance.public_ipaddr) && present(mapped)) {
    return {
      host: checkSshHost(instance.public_ipaddr, 'public_ipaddr'),
      port: checkSshPort(mapped, 'ports["22/tcp"].HostPort'),
      via: 'direct',
    };
  }
  return proxyEndpoint(instance);
}

/** Not yet sent: null, undefined, an empty or blank string. A 0 port is sent, and refused. */
function present(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');
}

/**
 * The command a user pastes into a terminal. The endpoint is checked again and each word quoted
 * for the shell, although a checked host and port never need it.
 */
export function sshCommand(endpoint: SshEndpoint): string {
  const field: SshField = endpoint.via === 'direct' ? 'public_ipaddr' : 'ssh_host';
  const host = checkSshHost(endpoint.host, field);
  const port = checkSshPort(endpoint.port, endpoint.via === 'direct' ? 'ports["22/tcp"].HostPort' : 'ssh_port');
  return `ssh -p ${shellQuote(String(port))} ${shellQuote(`root@${host}`)}`;
}
