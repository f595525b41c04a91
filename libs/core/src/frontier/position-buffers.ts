// Reused by a later run instead of allocating: fresh large arrays per write are external memory that brings the next
// GC nearer.

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
