// Entity tags of single entries (contract section 8). A strong tag is derived from the entry
// as it is shown, so any change to any field gives a new tag, even within one millisecond.
// The hash is FNV-1a over 64 bits: it guards against lost updates, not against forgery (a
// client that can write needs no collision), and it costs a fraction of a SHA-256 on the
// hottest path of the service.

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;

function fnv1a64(text: string): string {
  // Two 32-bit halves in plain numbers: BigInt arithmetic per character would be slower.
  let high = Number(FNV_OFFSET >> 32n);
  let low = Number(FNV_OFFSET & 0xffffffffn);
  const primeLow = Number(FNV_PRIME & 0xffffffffn); // 0x1b3; the high half of the prime is 0x100
  for (let i = 0; i < text.length; i++) {
    low = (low ^ text.charCodeAt(i)) >>> 0;
    // (high:low) * (0x100:0x1b3) mod 2^64
    const lowProduct = low * primeLow;
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (high * primeLow + low * 0x100 + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

export function entityTag(entry: object): string {
  return `"${fnv1a64(JSON.stringify(entry))}"`;
}

function listedTags(header: string): string[] {
  return header.split(',').map((tag) => tag.trim()).filter(Boolean);
}

/** If-Match uses the strong comparison: a weak tag never matches (RFC 9110, 13.1.1). */
export function ifMatchHolds(header: string, current: string): boolean {
  return listedTags(header).some((tag) => tag === '*' || tag === current);
}

/** If-None-Match uses the weak comparison: W/ is ignored (RFC 9110, 13.1.2). */
export function ifNoneMatchHolds(header: string, current: string): boolean {
  const weakless = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return !listedTags(header).some((tag) => tag === '*' || weakless(tag) === current);
}
