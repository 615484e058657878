// Where notifications may be sent: http and https only; never, by default, to link-local
// addresses or cloud metadata endpoints (a webhook aimed at 169.254.169.254 would hand
// the machine's cloud credentials to whoever can create a service). Private addresses
// are allowed: on-premise receivers live there. Operators add their own rules
// (`notifications.outbound`): `deny` wins, then `allow` (which may re-open a default
// refusal), then the defaults. Entries are addresses, CIDR blocks or host names
// (`*.example.com` for a domain's hosts; config/rules.ts checks them).
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

export interface OutboundRules {
  allow: readonly string[];
  deny: readonly string[];
}

/** Resolves a host name to every address it has (replaceable in tests). */
export type Resolve = (host: string) => Promise<string[]>;

const defaultResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

function refusedByDefault(): BlockList {
  const list = new BlockList();
  list.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, AWS/GCP/Azure/OpenStack metadata
  list.addSubnet('fe80::', 10, 'ipv6'); // link-local
  list.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
  list.addSubnet('100.100.100.200', 32, 'ipv4'); // Alibaba Cloud metadata
  return list;
}

class RuleSet {
  private readonly addresses = new BlockList();
  private readonly hosts: string[] = [];

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, prefix] = entry.split('/');
      const family = isIP(address!);
      if (family === 0) this.hosts.push(entry.toLowerCase());
      else if (prefix === undefined) this.addresses.addAddress(address!, family === 6 ? 'ipv6' : 'ipv4');
      else this.addresses.addSubnet(address!, Number(prefix), family === 6 ? 'ipv6' : 'ipv4');
    }
  }

  hasHost(host: string): boolean {
    return this.hosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) : host === h));
  }

  hasAddress(address: string): boolean {
    return this.addresses.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
}

/** `::ffff:169.254.169.254` is 169.254.169.254. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

export class UrlPolicy {
  private readonly defaults = refusedByDefault();

  /**
   * `resolveTimeoutMs`: the system resolver may take tens of seconds to give up on a
   * dead DNS server; a service test or a delivery waits no longer than this for the check.
   */
  constructor(
    private readonly rules: () => OutboundRules,
    private readonly resolve: Resolve = defaultResolve,
    private readonly resolveTimeoutMs = 5000,
  ) {}

  /** Why this URL is refused without resolving it (scheme, literal address, host name rules), or null. */
  check(raw: string): string | null {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'is not a valid URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return isIP(host) ? this.addressProblem(host) : this.hostProblem(host);
  }

  /** The same, and then every address the host resolves to (checked just before sending). */
  async checkResolved(raw: string): Promise<string | null> {
    const problem = this.check(raw);
    if (problem) return problem;
    const host = new URL(raw).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isIP(host) || this.ruleSets().allow.hasHost(host)) return null;
    let addresses: string[] | 'timeout';
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'timeout'>((done) => { timer = setTimeout(() => done('timeout'), this.resolveTimeoutMs); });
    try {
      addresses = await Promise.race([this.resolve(host), late]);
    } catch {
      return null; // unresolvable: the delivery itself fails and says so
    } finally {
      clearTimeout(timer);
    }
    // unchecked is not allowed: the delivery fails now and is retried like any other failure
    if (addresses === 'timeout') return `is refused for now: ${host} did not resolve within ${this.resolveTimeoutMs} ms`;
    for (const a of addresses) {
      const why = this.addressProblem(plainAddress(a));
      if (why) return `is refused: ${host} resolves to ${a}; ${why.replace(/^is refused: /, '')}`;
    }
    return null;
  }

  private ruleSets(): { allow: RuleSet; deny: RuleSet } {
    const r = this.rules();
    return { allow: new RuleSet(r.allow), deny: new RuleSet(r.deny) };
  }

  private hostProblem(host: string): string | null {
    const { allow, deny } = this.ruleSets();
    if (deny.hasHost(host)) return `is refused: ${host} is denied by notifications.outbound.deny`;
    if (allow.hasHost(host)) return null;
    if (METADATA_HOSTS.has(host)) return `is refused: ${host} is a cloud metadata endpoint`;
    return null;
  }

  private addressProblem(address: string): string | null {
    const a = plainAddress(address);
    const type = isIP(a) === 6 ? 'ipv6' : 'ipv4';
    const { allow, deny } = this.ruleSets();
    if (deny.hasAddress(a)) return `is refused: ${a} is denied by notifications.outbound.deny`;
    if (allow.hasAddress(a)) return null;
    if (this.defaults.check(a, type)) return `is refused: ${a} is a link-local or cloud metadata address (allow it in notifications.outbound.allow)`;
    return null;
  }
}
