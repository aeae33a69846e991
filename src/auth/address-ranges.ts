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

// A token may list 100 ranges and a deployment hold thousands of tokens: every range is read
// into integers once (a canonical range by hand, anything else by ipaddr.js), and a request
// compares 32-bit words, never parsing a range again.
const IPV4_RANGE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/** The mask of the `index`th 32-bit word of an address under a prefix of `bits`. */
function wordMask(bits: number, index: number): number {
  const inWord = bits - 32 * index;
  if (inWord >= 32) return 0xffffffff;
  if (inWord <= 0) return 0;
  return (0xffffffff << (32 - inWord)) >>> 0;
}

/** The eight 16-bit groups of a canonical IPv6 address (lower case, `::` at most once, no
 * dotted tail), or undefined for any other spelling. */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const tail = halves.length === 1 || halves[1] === '' ? [] : halves[1]!.split(':');
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups: number[] = [];
  for (const group of head) {
    if (!HEX_GROUP.test(group)) return undefined;
    groups.push(parseInt(group, 16));
  }
  for (let i = 0; i < missing; i++) groups.push(0);
  for (const group of tail) {
    if (!HEX_GROUP.test(group)) return undefined;
    groups.push(parseInt(group, 16));
  }
  return groups;
}

/** A range as 32-bit words (one for IPv4, four for IPv6) and its prefix length. */
function rangeWords(range: string): { v4: boolean; words: number[]; bits: number } {
  const v4 = IPV4_RANGE.exec(range);
  if (v4 !== null) {
    const octets = v4.slice(1, 5).map(Number);
    const bits = Number(v4[5]);
    if (octets.every((octet) => octet <= 255) && bits <= 32) return { v4: true, words: [octetWord(octets)], bits };
  }
  const slash = range.lastIndexOf('/');
  const groups = slash > 0 ? ipv6Groups(range.slice(0, slash)) : undefined;
  const prefix = range.slice(slash + 1);
  if (groups !== undefined && /^\d{1,3}$/.test(prefix) && Number(prefix) <= 128) return { v4: false, words: groupWords(groups), bits: Number(prefix) };
  const [network, bits] = ipaddr.parseCIDR(range);
  return network.kind() === 'ipv4'
    ? { v4: true, words: [octetWord((network as ipaddr.IPv4).octets)], bits }
    : { v4: false, words: groupWords((network as ipaddr.IPv6).parts), bits };
}

function octetWord(octets: readonly number[]): number {
  return ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
}

function groupWords(groups: readonly number[]): number[] {
  const words: number[] = [];
  for (let i = 0; i < 8; i += 2) words.push(((groups[i]! << 16) | groups[i + 1]!) >>> 0);
  return words;
}

/** Whether a client address lies in one of the ranges (canonical, as canonicalRange gives
 * them). An IPv4 client seen through an IPv6 socket (`::ffff:10.1.2.3`) is matched as IPv4. */
export function addressMatcher(ranges: readonly string[]): (address: string) => boolean {
  // Per range: its network's words, then their masks.
  const v4: number[] = [];
  const v6: number[] = [];
  for (const range of ranges) {
    const { v4: isV4, words, bits } = rangeWords(range);
    const masks = words.map((_, index) => wordMask(bits, index));
    (isV4 ? v4 : v6).push(...words.map((word, index) => (word & masks[index]!) >>> 0), ...masks);
  }
  const v4Ranges = Uint32Array.from(v4);
  const v6Ranges = Uint32Array.from(v6);
  return (address) => {
    let client: Address;
    try {
      client = ipaddr.process(address);
    } catch {
      return false;
    }
    if (client.kind() === 'ipv4') {
      const word = octetWord((client as ipaddr.IPv4).octets);
      for (let i = 0; i < v4Ranges.length; i += 2) if (((word & v4Ranges[i + 1]!) >>> 0) === v4Ranges[i]) return true;
      return false;
    }
    const words = groupWords((client as ipaddr.IPv6).parts);
    for (let i = 0; i < v6Ranges.length; i += 8) {
      let inside = true;
      for (let w = 0; w < 4 && inside; w++) inside = ((words[w]! & v6Ranges[i + 4 + w]!) >>> 0) === v6Ranges[i + w];
      if (inside) return true;
    }
    return false;
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
