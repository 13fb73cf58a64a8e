import { isIP } from 'node:net';

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
