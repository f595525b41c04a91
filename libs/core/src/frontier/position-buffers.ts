// Position lists (Int32Array views) that a later run may write into again instead of allocating: at 1M items a fresh
// 4 MB array a write was external memory that brought the next GC nearer.

// A list of `size` positions in a buffer with room for a few more behind it.
export function withRoom(size: number): Int32Array {
  return new Int32Array(size + (size >> 6) + 64).subarray(0, size);
}

// The whole buffer a view starts at the beginning of (the view itself when it starts elsewhere).
export function roomBehind(view: Int32Array): Int32Array {
  if (view.byteOffset !== 0) {
    return view;
  }
  return new Int32Array(view.buffer, 0, view.buffer.byteLength / Int32Array.BYTES_PER_ELEMENT);
}
