// vitest setup file: byte arrays compare with Buffer.equals. Without it, toEqual on a site tree
// (a Map of file bytes) walks every byte as an object key — over half the CPU time of the
// equivalence tests. Failures still print vitest's usual diff.
import { expect } from 'vitest';

function sameBytes(a: unknown, b: unknown): boolean | undefined {
  // Two arrays of one kind only: anything else is left to vitest's own rules.
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.constructor !== b.constructor)
    return undefined;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

// Setup files run before every test file, and the shared project's files share one module graph.
const ADDED = Symbol.for('badgepress.bufferEquality');
const registry = globalThis as { [ADDED]?: boolean };
if (!registry[ADDED]) {
  expect.addEqualityTesters([sameBytes]);
  registry[ADDED] = true;
}
