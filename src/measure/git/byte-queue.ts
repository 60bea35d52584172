// The bytes a git process printed and nobody has taken yet, kept as the chunks they came in:
// joining each chunk onto what is pending would copy a 10 MB tree or record once per 64 KiB
// chunk (quadratic); here every byte is copied at most once, when it is taken.

export class ByteQueue {
  private chunks: Buffer[] = [];
  /** Bytes of chunks[0] already taken. */
  private head = 0;
  private pending = 0;
  /** How far a search for a byte got without finding it (bytes from the start of what is pending). */
  private searched = 0;

  get length(): number {
    return this.pending;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.pending += chunk.length;
  }

  /**
   * The offset (from the start of what is pending) of the first `byte`, or -1. A search that
   * finds nothing remembers how far it looked, so waiting for a long line costs no rescans.
   */
  indexOf(byte: number): number {
    let base = 0;
    for (let i = 0; i < this.chunks.length; i++) {
      const start = i === 0 ? this.head : 0;
      const size = this.chunks[i]!.length - start;
      if (base + size > this.searched) {
        const from = Math.max(0, this.searched - base);
        const at = this.chunks[i]!.indexOf(byte, start + from);
        if (at >= 0) return base + at - start;
      }
      base += size;
    }
    this.searched = base;
    return -1;
  }

  /** The first `n` pending bytes (n ≤ length), removed: a view when one chunk holds them, else one copy. */
  take(n: number): Buffer {
    if (n > this.pending) throw new RangeError(`take(${n}) with ${this.pending} bytes pending`);
    this.pending -= n;
    this.searched = Math.max(0, this.searched - n);
    const first = this.chunks[0];
    if (n === 0 || first === undefined) return Buffer.alloc(0);
    if (first.length - this.head >= n) {
      const out = first.subarray(this.head, this.head + n);
      this.head += n;
      if (this.head === first.length) {
        this.chunks.shift();
        this.head = 0;
      }
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0]!;
      const copied = chunk.copy(
        out,
        filled,
        this.head,
        Math.min(chunk.length, this.head + n - filled),
      );
      filled += copied;
      this.head += copied;
      if (this.head === chunk.length) {
        this.chunks.shift();
        this.head = 0;
      }
    }
    return out;
  }
}
