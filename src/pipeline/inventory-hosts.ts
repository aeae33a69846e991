// What the Ansible inventory keeps of its hosts between its one walk over the servers and the
// groups it writes after it (ansible-inventory.ts): each host's name as JSON text, one after
// another in a buffer, and each group's hosts as their positions in that list. Compact on
// purpose: at a million servers this is about 14 MB of names, 4 MB of positions and 4 bytes
// per group membership, off the JavaScript heap, where a string and an array entry per host
// and group would be several times that and the collector's work.

/** A growable list of 32-bit integers. */
export class Int32List {
  private values = new Int32Array(256);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Int32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  at(index: number): number {
    return this.values[index]!;
  }
}

/** Bytes a chunk of a group's list is cut at (a chunk may end a little past it). */
const CHUNK_BYTES = 64 * 1024;

export class HostNames {
  private text = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  /** Where each host's name starts in `text`; names are written each followed by a comma. */
  private readonly starts = new Int32List();

  get count(): number {
    return this.starts.length;
  }

  /** Keeps a host's name (its JSON text); resolves to its position. */
  add(json: string): number {
    const bytes = Buffer.byteLength(json) + 1;
    if (this.used + bytes > this.text.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.text.length * 2, this.used + bytes));
      this.text.copy(grown, 0, 0, this.used);
      this.text = grown;
    }
    this.starts.push(this.used);
    this.used += this.text.write(json, this.used, 'utf8');
    this.text[this.used++] = 0x2c; // ','
    return this.starts.length - 1;
  }

  /** Every name, in the order they were added, as the elements of a JSON list. */
  *all(): Generator<Buffer> {
    const end = this.used - 1; // the last comma is left out
    let at = 0;
    while (at < end) {
      let stop = Math.min(at + CHUNK_BYTES, end);
      // Cut after a comma: a name's UTF-8 is whole in one chunk.
      while (stop < end && this.text[stop - 1] !== 0x2c) stop++;
      yield this.text.subarray(at, stop);
      at = stop;
    }
  }

  /** The names at `positions`, as the elements of a JSON list. */
  *some(positions: Int32List): Generator<Buffer> {
    let chunk: Buffer[] = [];
    let size = 0;
    for (let i = 0; i < positions.length; i++) {
      const host = positions.at(i);
      const start = this.starts.at(host);
      const stop = host + 1 < this.starts.length ? this.starts.at(host + 1) : this.used;
      // With its comma, except the last one's.
      chunk.push(this.text.subarray(start, i + 1 < positions.length ? stop : stop - 1));
      size += stop - start;
      if (size >= CHUNK_BYTES) {
        yield Buffer.concat(chunk);
        chunk = [];
        size = 0;
      }
    }
    if (chunk.length > 0) yield Buffer.concat(chunk);
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
    if (members.length === 0 || members.at(members.length - 1) !== host) members.push(host);
  }

  /** The groups that have a host, by name. */
  sorted(): [string, Int32List][] {
    return [...this.groups].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}
