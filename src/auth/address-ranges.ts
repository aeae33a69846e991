// The networks a token may be used from (`allowed_ips`): IPv4 and IPv6 CIDR ranges, parsed and
// matched with ipaddr.js (the library Fastify's trustProxy relies on, through proxy-addr).
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parseAddress(text: string): Address | undefined {
  // Dotted quads only: ipaddr.js would also read `10.1` or `0x0a.0.0.1`, spellings nobody means.
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  // No zone (`%eth0`): it names an interface of one host, not a network.
  if (!text.includes('%') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return undefined;
}

/**
 * The canonical form of a range, `address/prefix` with the network address (`10.0.0.0/8`,
 * `2001:db8::/32`; a lone address is `/32` or `/128`), or undefined if the text is not one:
 * bits set past the prefix are refused, as PostgreSQL's cidr type does, since they are most
 * likely a mistake. An IPv4-mapped IPv6 range is written as the IPv4 range it is.
 */
export function canonicalRange(text: string): string | undefined {
  const [addressText = '', prefixText, extra] = text.split('/');
  let address = parseAddress(addressText);
  if (address === undefined || extra !== undefined) return undefined;
  let bits = address.kind() === 'ipv4' ? 32 : 128;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined;
    bits = Number(prefixText);
  }
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    address = (address as ipaddr.IPv6).toIPv4Address();
    bits -= 96;
  }
  const spelled = `${address.toString()}/${bits}`;
  const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(spelled) : ipaddr.IPv6.networkAddressFromCIDR(spelled);
  if (network.toNormalizedString() !== address.toNormalizedString()) return undefined;
  return address.kind() === 'ipv6' ? `${(address as ipaddr.IPv6).toRFC5952String()}/${bits}` : spelled;
}

/** Whether a client address lies in one of the ranges (canonical, as canonicalRange gives
 * them). An IPv4 client seen through an IPv6 socket (`::ffff:10.1.2.3`) is matched as IPv4. */
export function addressMatcher(ranges: readonly string[]): (address: string) => boolean {
  const networks = ranges.map((range) => ipaddr.parseCIDR(range));
  return (address) => {
    let client: Address;
    try {
      client = ipaddr.process(address);
    } catch {
      return false;
    }
    return networks.some(([network, bits]) => network.kind() === client.kind() && client.match(network, bits));
  };
}

/**
 * The share of the address space one client is counted by (the rate limit): an IPv4 address
 * (an IPv4-mapped IPv6 one too), or an IPv6 /64, since one subscriber or host is usually given
 * a whole /64 and may pick any address in it. Text that is no address is its own key.
 */
export function clientNetwork(address: string): string {
  let client: Address;
  try {
    client = ipaddr.process(address);
  } catch {
    return address;
  }
  if (client.kind() === 'ipv4') return client.toString();
  const parts = (client as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toRFC5952String()}/64`;
}
