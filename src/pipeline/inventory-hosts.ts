// What the Ansible inventory keeps of its hosts between its one walk over the servers and the
// groups it writes after it (ansible-inventory.ts): each host's name as JSON text, one after
// another in blocks of bytes, and each group's hosts as their positions in that list. Compact
// on purpose, and grown by blocks, never by copying: at a million servers about 14 MB of
// names, 4 MB of positions and 4 bytes per group membership (11 MB), off the JavaScript heap,
// where a string and an array entry per host and group would be several times that.

/** A list of 32-bit integers grown by blocks (doubling up to `maxBlock` entries), read in order. */
export class Int32List {
  private readonly blocks: Int32Array[] = [];
  private last: Int32Array | undefined;
  private used = 0;
  length = 0;

  constructor(
    private readonly firstBlock = 64,
    private readonly maxBlock = 16384,
  ) {}

  push(value: number): void {
    if (this.last === undefined || this.used === this.last.length) {
      this.last = new Int32Array(this.last === undefined ? this.firstBlock : Math.min(this.last.length * 2, this.maxBlock));
      this.blocks.push(this.last);
      this.used = 0;
    }
    this.last[this.used++] = value;
    this.length++;
  }

  lastValue(): number | undefined {
    return this.last === undefined || this.used === 0 ? undefined : this.last[this.used - 1];
  }

  *values(): Generator<number> {
    let left = this.length;
    for (const block of this.blocks) {
      const count = Math.min(block.length, left);
      for (let i = 0; i < count; i++) yield block[i]!;
      left -= count;
    }
  }
}

/** Bytes of a block of names, and about the size of a chunk of a group's list. */
const BLOCK_BYTES = 1 << 20;
const CHUNK_BYTES = 64 * 1024;
/** Positions per block: 256 KB. */
const POSITIONS_BLOCK = 65536;

export class HostNames {
  private readonly blocks: Buffer[] = [];
  /** Bytes used in each block. */
  private readonly used: number[] = [];
  /** Each host's block and start in it, as block * BLOCK_BYTES + start: names are written each
   * followed by a comma, and never across two blocks. */
  private readonly starts: Int32Array[] = [];
  count = 0;

  /** Keeps a host's name (its JSON text); resolves to its position. */
  add(json: string): number {
    const bytes = Buffer.byteLength(json) + 1;
    let block = this.blocks.length - 1;
    if (block < 0 || this.used[block]! + bytes > this.blocks[block]!.length) {
      // A name is far shorter than a block (a hostname is 200 characters at most).
      this.blocks.push(Buffer.allocUnsafe(Math.max(BLOCK_BYTES, bytes)));
      this.used.push(0);
      block++;
    }
    const start = this.used[block]!;
    const written = this.blocks[block]!.write(json, start, 'utf8');
    this.blocks[block]![start + written] = 0x2c; // ','
    this.used[block] = start + written + 1;
    if (this.count % POSITIONS_BLOCK === 0) this.starts.push(new Int32Array(POSITIONS_BLOCK));
    this.starts[this.starts.length - 1]![this.count % POSITIONS_BLOCK] = block * BLOCK_BYTES + start;
    return this.count++;
  }

  /** Every name, in the order they were added, as the elements of a JSON list. */
  *all(): Generator<Buffer> {
    for (let block = 0; block < this.blocks.length; block++) {
      const last = block === this.blocks.length - 1;
      // Without the last name's comma.
      yield this.blocks[block]!.subarray(0, this.used[block]! - (last ? 1 : 0));
    }
  }

  /** The bytes of host `host`'s name, without its comma. */
  private name(host: number): Buffer {
    const at = this.starts[Math.floor(host / POSITIONS_BLOCK)]![host % POSITIONS_BLOCK]!;
    const block = Math.floor(at / BLOCK_BYTES);
    const start = at % BLOCK_BYTES;
    const next = host + 1 < this.count ? this.starts[Math.floor((host + 1) / POSITIONS_BLOCK)]![(host + 1) % POSITIONS_BLOCK]! : -1;
    const end = next >= 0 && Math.floor(next / BLOCK_BYTES) === block ? next % BLOCK_BYTES : this.used[block]!;
    return this.blocks[block]!.subarray(start, end - 1);
  }

  /** The names at `positions`, as the elements of a JSON list, in chunks: as strings, which
   * the collector frees with the young generation, where a Buffer per chunk would be external
   * memory freed only at a full collection. */
  *some(positions: Int32List): Generator<string> {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES + 1024);
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
  private readonly groups = new Map<string, Int32List>();

  add(group: string, host: number): void {
    let members = this.groups.get(group);
    if (members === undefined) {
      members = new Int32List();
      this.groups.set(group, members);
    }
    // A host is in a group once, even when two of its tags make the same group name.
    if (members.lastValue() !== host) members.push(host);
  }

  /** The groups that have a host, by name. */
  sorted(): [string, Int32List][] {
    return [...this.groups].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}
