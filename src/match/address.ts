// Address matching for http.trust_proxy: which peers may say, through X-Forwarded-Proto, that a plain-HTTP
// request reached their side over HTTPS. `true` trusts every peer (a proxy on the same
// host, nothing else can connect), `false` none, a list only those addresses and CIDR
// blocks, IPv4 and IPv6, so a client that reaches the port directly cannot claim HTTPS.
import { BlockList, isIP } from 'node:net';

export type TrustProxySetting = boolean | readonly string[];

export type ProxyTrust = (address: string | undefined) => boolean;

/** `1.2.3.4`, `10.0.0.0/8`, `::1`, `fd00::/8`: what is wrong with one entry, or null. */
export function proxyEntryProblem(entry: string): string | null {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return `"${entry}" is not an IP address or CIDR block`;
  if (prefix === undefined) return null;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128))) return `"${entry}": the prefix length must be 0-${family === 4 ? 32 : 128}`;
  return null;
}

export function proxyTrust(setting: TrustProxySetting): ProxyTrust {
  if (setting === true) return () => true;
  if (setting === false || setting.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of setting) {
    const [address, prefix] = entry.split('/');
    const type = isIP(address!) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(prefix), type);
  }
  return (raw) => {
    if (!raw) return false;
    // an IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d
    const address = raw.startsWith('::ffff:') && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * An entry of notifications.outbound.allow / deny: an address, a CIDR block or a host name
 * (`*.example.com` for a domain's hosts). What is wrong with it, or null.
 */
export function outboundEntryProblem(entry: string): string | null {
  if (isIP(entry.split('/')[0] ?? '') !== 0) return proxyEntryProblem(entry);
  return /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry) ? null : `"${entry}" is not an address, a CIDR block or a host name`;
}
