// What the Ansible inventory keeps of its hosts between its one walk over the servers and the
// groups it writes after it (ansible-inventory.ts): each host's name as JSON text, one after
// another in blocks of bytes, and each group's hosts as the gaps between their positions in
// that list. Compact on purpose, grown by blocks, never by copying, and off the JavaScript
// heap: this is what the answer holds at its largest, for the whole fleet, while it writes
// the groups (the figures: docs/performance.md, "Figures behind the code").

/** Bytes the position lists take their blocks from, and the largest block one list takes. */
const SLAB_BYTES = 1 << 20;
const LARGEST_BLOCK = 4096;

/**
 * A rising list of host positions, kept as the gaps between them (less one), seven bits a byte:
 * a group's hosts are in id order, so a gap takes one or two bytes where a 32-bit entry took
 * four. A list grows by blocks (doubling from 16 bytes up to LARGEST_BLOCK) cut from slabs
 * the lists of one answer share, so that a small group costs a few bytes, not a buffer.
 */
export class PositionList {
  private readonly blocks: Uint8Array[] = [];
  private used = 0;
  private last = -1;
  length = 0;

  constructor(private readonly slabs: Slabs) {}

  /** Adds `position`, which must be above the last one (else it is a repeat and is left out). */
  push(position: number): void {
    if (position <= this.last) return;
    let gap = position - this.last - 1;
    this.last = position;
    this.length++;
    do {
      const byte = gap > 0x7f ? (gap & 0x7f) | 0x80 : gap;
      gap = Math.floor(gap / 128);
      let block = this.blocks[this.blocks.length - 1];
      if (block === undefined || this.used === block.length) {
        block = this.slabs.take(block === undefined ? 16 : Math.min(block.length * 2, LARGEST_BLOCK));
        this.blocks.push(block);
        this.used = 0;
      }
      block[this.used++] = byte;
    } while (gap > 0);
  }

  *values(): Generator<number> {
    let position = -1;
    let gap = 0;
    let shift = 1;
    const lastBlock = this.blocks.length - 1;
    for (let b = 0; b <= lastBlock; b++) {
      const block = this.blocks[b]!;
      const end = b === lastBlock ? this.used : block.length;
      for (let i = 0; i < end; i++) {
        const byte = block[i]!;
        gap += (byte & 0x7f) * shift;
        if (byte & 0x80) {
          shift *= 128;
        } else {
          position += gap + 1;
          yield position;
          gap = 0;
          shift = 1;
        }
      }
    }
  }
}

/** Slabs kept for the next answer once one is done: what the largest answers use, at most. */
const POOLED_SLABS = 48;
const pool: Buffer[] = [];

/**
 * The slabs of one answer, and blocks of bytes cut from them: one buffer a megabyte, not one
 * per block. They are taken from a pool and given back when the answer is done (`release`):
 * a buffer the answer dropped would be freed only at the next full collection, and the
 * allocator would keep much of it, so each answer at a million servers stacked its own tens
 * of megabytes on the last one's. Nothing cut from a slab leaves this file: the text handed
 * on is copied into strings, so a slab given back is no longer read.
 */
export class Slabs {
  private readonly taken: Buffer[] = [];
  private slab: Buffer | undefined;
  private used = 0;

  /** A whole slab of SLAB_BYTES. */
  whole(): Buffer {
    const slab = pool.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
    this.taken.push(slab);
    return slab;
  }

  take(bytes: number): Uint8Array {
    if (this.slab === undefined || this.used + bytes > this.slab.length) {
      this.slab = this.whole();
      this.used = 0;
    }
    const block = this.slab.subarray(this.used, this.used + bytes);
    this.used += bytes;
    return block;
  }

  /** Gives every slab back to the pool: nothing taken from them may be read after. */
  release(): void {
    for (const slab of this.taken.splice(0)) if (pool.length < POOLED_SLABS) pool.push(slab);
    this.slab = undefined;
  }
}

/** About the size of a chunk of text handed on (CHUNK_CHARS in monitoring-query.ts). */
const CHUNK_BYTES = 32 * 1024;
/** Positions per block of starts: a slab of 32-bit integers. */
const POSITIONS_BLOCK = SLAB_BYTES / 4;

export class HostNames {
  private readonly blocks: Buffer[] = [];
  /** Bytes used in each block. */
  private readonly used: number[] = [];
  /** Each host's block and start in it, as block * SLAB_BYTES + start: names are written each
   * followed by a comma, and never across two blocks. */
  private readonly starts: Int32Array[] = [];
  /** Where a chunk of a list of names is put together before it is copied into a string. */
  private chunk: Buffer | undefined;
  count = 0;

  constructor(private readonly slabs: Slabs) {}

  /** Keeps a host's name (its JSON text); resolves to its position. */
  add(json: string): number {
    // A name is far shorter than a slab (a hostname is 200 characters at most).
    const bytes = Buffer.byteLength(json) + 1;
    let block = this.blocks.length - 1;
    if (block < 0 || this.used[block]! + bytes > SLAB_BYTES) {
      this.blocks.push(this.slabs.whole());
      this.used.push(0);
      block++;
    }
    const start = this.used[block]!;
    const written = this.blocks[block]!.write(json, start, 'utf8');
    this.blocks[block]![start + written] = 0x2c; // ','
    this.used[block] = start + written + 1;
    if (this.count % POSITIONS_BLOCK === 0) {
      const slab = this.slabs.whole();
      this.starts.push(new Int32Array(slab.buffer, slab.byteOffset, POSITIONS_BLOCK));
    }
    this.starts[this.starts.length - 1]![this.count % POSITIONS_BLOCK] = block * SLAB_BYTES + start;
    return this.count++;
  }

  /** Every name, in the order they were added, as the elements of a JSON list, in chunks cut
   * after a comma (a comma byte is never inside a character's UTF-8 bytes). */
  *all(): Generator<string> {
    for (let block = 0; block < this.blocks.length; block++) {
      const bytes = this.blocks[block]!;
      // Without the last name's comma.
      const end = this.used[block]! - (block === this.blocks.length - 1 ? 1 : 0);
      let start = 0;
      while (start < end) {
        let cut = end;
        if (end - start > CHUNK_BYTES) {
          const comma = bytes.lastIndexOf(0x2c, start + CHUNK_BYTES);
          cut = comma > start ? comma + 1 : end;
        }
        yield bytes.toString('utf8', start, cut);
        start = cut;
      }
    }
  }

  /** The bytes of host `host`'s name, without its comma. */
  private name(host: number): Buffer {
    const at = this.starts[Math.floor(host / POSITIONS_BLOCK)]![host % POSITIONS_BLOCK]!;
    const block = Math.floor(at / SLAB_BYTES);
    const start = at % SLAB_BYTES;
    const next = host + 1 < this.count ? this.starts[Math.floor((host + 1) / POSITIONS_BLOCK)]![(host + 1) % POSITIONS_BLOCK]! : -1;
    const end = next >= 0 && Math.floor(next / SLAB_BYTES) === block ? next % SLAB_BYTES : this.used[block]!;
    return this.blocks[block]!.subarray(start, end - 1);
  }

  /** The names at `positions`, as the elements of a JSON list, in chunks: as strings, which
   * the collector frees with the young generation, where a Buffer per chunk would be external
   * memory freed only at a full collection. */
  *some(positions: PositionList): Generator<string> {
    const chunk = (this.chunk ??= this.slabs.whole()).subarray(0, CHUNK_BYTES + 1024);
    let size = 0;
    let first = true;
    for (const host of positions.values()) {
      const name = this.name(host);
      if (size + name.length + 1 > chunk.length) {
        yield chunk.toString('utf8', 0, size);
        size = 0;
      }
      if (!first) chunk[size++] = 0x2c;
      first = false;
      size += name.copy(chunk, size);
    }
    if (size > 0) yield chunk.toString('utf8', 0, size);
  }
}

/** The hosts of each group, by group name. */
export class GroupMembers {
  private readonly groups = new Map<string, PositionList>();

  constructor(private readonly slabs: Slabs) {}

  /** Hosts are added in rising positions; a host is in a group once, even when two of its
   * tags make the same group name (PositionList leaves the repeat out). */
  add(group: string, host: number): void {
    let members = this.groups.get(group);
    if (members === undefined) {
      members = new PositionList(this.slabs);
      this.groups.set(group, members);
    }
    members.push(host);
  }

  /** The groups that have a host, by name. */
  sorted(): [string, PositionList][] {
    return [...this.groups].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}
