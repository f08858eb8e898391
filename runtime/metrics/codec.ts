// Block encoding for the resource history: one series' samples over one block of time
// (an hour of 60 s samples, or six hours of 10-minute points) in a single BLOB.
//
// Why this shape. 5000 pods x 7 days must fit in 200 MiB, about 40 KiB a pod. One SQLite row
// per sample costs ~40 bytes of record and index overhead before any value is stored, so
// samples are packed per series and per block, and each column is stored as what is left
// once the predictable part is removed:
// - per column, the deltas between consecutive present values are divided by their greatest
//   common divisor (memory arrives in KiB, so its deltas are multiples of 1024; timestamps
//   of a regular sampler are multiples of 60);
// - then either those deltas (random walks: CPU, memory) or their deltas again (monotonic
//   counters growing at a near-steady rate, and timestamps, whose second differences are all
//   zero) are kept, whichever is cheaper for this block;
// - the result is zigzag-mapped to unsigned and Rice coded: `q = v >> k` in unary, then `k`
//   low bits, with `k` picked per column per block. Deltas of noisy gauges are roughly
//   Laplacian, for which Rice codes are within a fraction of a bit of the entropy, where a
//   byte varint wastes 2-4 bits a value (continuation bits and rounding up to whole bytes).
//   A counter reset, the one large outlier, escapes to `ESCAPE` ones plus an explicit length
//   and the raw bits, so it does not widen `k` for the other 59 values;
// - a column whose second-level stream is all zeros (regular timestamps, a constant count)
//   costs a few bits in total;
// - nulls are a per-column presence bitmap only when the column is partly null.
// Everything is one bit stream (no per-column byte alignment). Decoding is exact for every
// integer within +-2^50: second differences then stay within 2^52, zigzag within 2^53, so all
// arithmetic stays in doubles' exact integer range.

/** Values (and timestamps minus the base) must lie within +-MAX_ABS. */
export const MAX_ABS = 2 ** 50;
const VERSION = 1;
/** Quotients at or above this are written as an escape: ESCAPE ones, a 6-bit length, the bits. */
const ESCAPE = 16;
const ALL_ZERO_K = 63;
const POW2 = Array.from({ length: 64 }, (_, i) => 2 ** i);

export interface Block {
  /** Epoch seconds, one per sample. */
  ts: readonly number[];
  /** Columns of integers, each as long as `ts`; null is "no value in this sample". */
  cols: readonly (readonly (number | null)[])[];
}

// Two-bit tags in the stream.
const Presence = { All: 0, None: 1, Partial: 2 } as const;
const Mode = { Constant: 0, Delta: 1, DeltaOfDelta: 2 } as const;

class BitWriter {
  private bytes = new Uint8Array(256);
  private length = 0;
  private acc = 0;
  private pending = 0;

  /** `bits` <= 24 and `value` < 2^bits, so the accumulator (< 2^7 before) stays within int32. */
  private put(value: number, bits: number): void {
    this.acc = (this.acc << bits) | value;
    this.pending += bits;
    while (this.pending >= 8) {
      this.pending -= 8;
      if (this.length === this.bytes.length) {
        const grown = new Uint8Array(this.bytes.length * 2);
        grown.set(this.bytes);
        this.bytes = grown;
      }
      this.bytes[this.length++] = (this.acc >>> this.pending) & 0xff;
    }
    this.acc &= (1 << this.pending) - 1;
  }

  bits(value: number, bits: number): void {
    let rest = value;
    let left = bits;
    while (left > 24) {
      const scale = 2 ** (left - 24);
      const top = Math.floor(rest / scale);
      this.put(top, 24);
      rest -= top * scale;
      left -= 24;
    }
    if (left > 0) this.put(rest, left);
  }

  varint(value: number): void {
    let rest = value;
    while (rest >= 128) {
      this.put((rest % 128) | 128, 8);
      rest = Math.floor(rest / 128);
    }
    this.put(rest, 8);
  }

  rice(value: number, k: number): void {
    const scale = POW2[k] ?? 2 ** k;
    const q = Math.floor(value / scale);
    if (q >= ESCAPE) {
      this.put((1 << ESCAPE) - 1, ESCAPE);
      const length = bitLength(value);
      this.put(length, 6);
      this.bits(value, length);
      return;
    }
    this.put(((1 << q) - 1) << 1, q + 1);
    if (k <= 24) this.put(value - q * scale, k);
    else this.bits(value - q * scale, k);
  }

  finish(): Uint8Array {
    if (this.pending > 0) this.put(0, 8 - this.pending);
    return this.bytes.slice(0, this.length);
  }
}

class BitReader {
  private index = 0;
  private bitPos = 0;

  constructor(private readonly bytes: Uint8Array) {}

  private bit(): number {
    return this.take(1);
  }

  /** Up to 24 bits, a byte at a time (the value stays within int32). */
  private take(bits: number): number {
    let value = 0;
    let need = bits;
    while (need > 0) {
      const byte = this.bytes[this.index];
      if (byte === undefined) throw new RangeError('metrics block is truncated');
      const available = 8 - this.bitPos;
      const n = available < need ? available : need;
      value = (value << n) | ((byte >>> (available - n)) & ((1 << n) - 1));
      need -= n;
      this.bitPos += n;
      if (this.bitPos === 8) {
        this.bitPos = 0;
        this.index++;
      }
    }
    return value;
  }

  bits(bits: number): number {
    let value = 0;
    let left = bits;
    while (left > 24) {
      value = value * 2 ** 24 + this.take(24);
      left -= 24;
    }
    return value * (POW2[left] ?? 2 ** left) + this.take(left);
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const group = this.bits(8);
      value += (group & 127) * scale;
      if (group < 128) return value;
      scale *= 128;
      if (scale > 2 ** 56) throw new RangeError('metrics block has an overlong varint');
    }
  }

  rice(k: number): number {
    let q = 0;
    while (q < ESCAPE && this.bit() === 1) q++;
    if (q === ESCAPE) return this.bits(this.take(6));
    return q * (POW2[k] ?? 2 ** k) + (k <= 24 ? this.take(k) : this.bits(k));
  }
}

function bitLength(value: number): number {
  if (value < 2147483648) return 32 - Math.clz32(value);
  return 32 + (32 - Math.clz32(Math.floor(value / 2 ** 32)));
}

const zigzag = (v: number): number => (v >= 0 ? 2 * v : -2 * v - 1);
const unzigzag = (u: number): number => (u % 2 === 0 ? u / 2 : -(u + 1) / 2);

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) {
    const r = x % y;
    x = y;
    y = r;
  }
  return x;
}

/** The Rice parameter and its (estimated) cost in bits, from a histogram of bit lengths so one outlier cannot skew it. */
function chooseK(stream: readonly number[]): { k: number; cost: number } {
  const histogram = new Int32Array(56);
  let nonZero = false;
  for (const v of stream) {
    const length = bitLength(v);
    histogram[length] = (histogram[length] ?? 0) + 1;
    if (v !== 0) nonZero = true;
  }
  if (!nonZero) return { k: ALL_ZERO_K, cost: 6 };
  const lengths: number[] = [];
  for (let length = 0; length < histogram.length; length++) if (histogram[length]) lengths.push(length);
  let bestK = 0;
  let bestCost = Infinity;
  // Past the longest value, a larger k only adds bits. Below that every k is tried: the cost
  // is not unimodal in k (escaped outliers hold it flat, then drop it, while small values
  // make it rise), and a narrower search measurably loses bytes.
  for (let k = 0; k <= (lengths[lengths.length - 1] ?? 0); k++) {
    let cost = 6;
    for (const length of lengths) {
      const q = length <= k ? 0 : 0.75 * (POW2[length - k] ?? Infinity);
      cost += (histogram[length] ?? 0) * (q >= ESCAPE ? ESCAPE + 6 + length : q + 1 + k);
    }
    if (cost < bestCost) {
      bestCost = cost;
      bestK = k;
    }
  }
  // The histogram only estimates quotients; settle between neighbours on the exact cost.
  let exact = { k: bestK, cost: Infinity };
  for (let k = Math.max(0, bestK - 1); k <= bestK + 1; k++) {
    const scale = POW2[k] ?? 2 ** k;
    let cost = 6;
    for (const v of stream) {
      const q = Math.floor(v / scale);
      cost += q >= ESCAPE ? ESCAPE + 6 + bitLength(v) : q + 1 + k;
    }
    if (cost < exact.cost) exact = { k, cost };
  }
  return exact;
}

function checkValue(v: number): void {
  if (!Number.isSafeInteger(v) || Math.abs(v) > MAX_ABS) throw new RangeError(`metrics value out of range: ${v}`);
}

function writeColumn(out: BitWriter, values: readonly number[]): void {
  const first = values[0] ?? 0;
  out.varint(zigzag(first));
  if (values.length < 2) return;
  const m = values.length;
  const deltas: number[] = [];
  let divisor = 0;
  for (let i = 1; i < m; i++) {
    const d = (values[i] ?? 0) - (values[i - 1] ?? 0);
    deltas.push(d);
    if (divisor !== 1) divisor = gcd(divisor, d);
  }
  if (divisor === 0) {
    out.bits(Mode.Constant, 2);
    return;
  }
  const deltaStream: number[] = [];
  const dodStream: number[] = [];
  let previous = 0;
  for (let i = 0; i < m - 1; i++) {
    const d = (deltas[i] ?? 0) / divisor;
    deltaStream.push(zigzag(d));
    if (i > 0) dodStream.push(zigzag(d - previous));
    previous = d;
  }
  const byDelta = chooseK(deltaStream);
  // Delta-of-delta also spends a varint on the first delta.
  const byDod = dodStream.length > 0 ? chooseK(dodStream) : { k: ALL_ZERO_K, cost: 0 };
  const firstDeltaBits = 8 * Math.max(1, Math.ceil(bitLength(deltaStream[0] ?? 0) / 7));
  const useDod = byDod.cost + firstDeltaBits < byDelta.cost;
  out.bits(useDod ? Mode.DeltaOfDelta : Mode.Delta, 2);
  out.varint(divisor);
  const { stream, k } = useDod ? { stream: dodStream, k: byDod.k } : { stream: deltaStream, k: byDelta.k };
  if (useDod) out.varint(deltaStream[0] ?? 0);
  if (stream.length === 0) return;
  out.bits(k, 6);
  if (k === ALL_ZERO_K) return;
  for (const v of stream) out.rice(v, k);
}

function readColumn(input: BitReader, count: number): number[] {
  const first = unzigzag(input.varint());
  const values = [first];
  if (count < 2) return values;
  const mode = input.bits(2);
  if (mode === Mode.Constant) {
    for (let i = 1; i < count; i++) values.push(first);
    return values;
  }
  if (mode !== Mode.Delta && mode !== Mode.DeltaOfDelta) throw new RangeError('metrics block has an unknown column mode');
  const divisor = input.varint();
  const streamLength = mode === Mode.Delta ? count - 1 : count - 2;
  let delta = mode === Mode.DeltaOfDelta ? unzigzag(input.varint()) : 0;
  if (mode === Mode.DeltaOfDelta) values.push(first + delta * divisor);
  const k = streamLength > 0 ? input.bits(6) : ALL_ZERO_K;
  for (let i = 0; i < streamLength; i++) {
    const u = k === ALL_ZERO_K ? 0 : input.rice(k);
    delta = mode === Mode.Delta ? unzigzag(u) : delta + unzigzag(u);
    values.push((values[values.length - 1] ?? 0) + delta * divisor);
  }
  return values;
}

/** Encodes a block; `base` (the block's start, kept in the row) makes the first timestamp small. */
export function encodeBlock(block: Block, base: number): Uint8Array {
  checkValue(base);
  const n = block.ts.length;
  const out = new BitWriter();
  out.bits(VERSION, 8);
  out.varint(n);
  out.varint(block.cols.length);
  if (n === 0) return out.finish();
  const ts = block.ts.map((t) => t - base);
  ts.forEach(checkValue);
  writeColumn(out, ts);
  for (const col of block.cols) {
    if (col.length !== n) throw new RangeError('metrics block column length differs from its timestamps');
    const present: number[] = [];
    for (const v of col) {
      if (v === null) continue;
      checkValue(v);
      present.push(v);
    }
    if (present.length === n) out.bits(Presence.All, 2);
    else if (present.length === 0) out.bits(Presence.None, 2);
    else {
      out.bits(Presence.Partial, 2);
      for (const v of col) out.bits(v === null ? 0 : 1, 1);
    }
    if (present.length > 0) writeColumn(out, present);
  }
  return out.finish();
}

export function decodeBlock(payload: Uint8Array, base: number): Block {
  const input = new BitReader(payload);
  if (input.bits(8) !== VERSION) throw new RangeError('metrics block has an unknown format version');
  const n = input.varint();
  const columns = input.varint();
  if (n === 0) return { ts: [], cols: Array.from({ length: columns }, () => []) };
  const ts = readColumn(input, n).map((t) => t + base);
  const cols: (number | null)[][] = [];
  for (let c = 0; c < columns; c++) {
    const presence = input.bits(2);
    let mask: boolean[] | null = null;
    if (presence === Presence.Partial) {
      mask = [];
      for (let i = 0; i < n; i++) mask.push(input.bits(1) === 1);
    } else if (presence !== Presence.All && presence !== Presence.None) {
      throw new RangeError('metrics block has an unknown presence mode');
    }
    const present = presence === Presence.None ? 0 : mask ? mask.filter(Boolean).length : n;
    const values = present > 0 ? readColumn(input, present) : [];
    if (!mask) {
      cols.push(presence === Presence.None ? new Array<null>(n).fill(null) : values);
      continue;
    }
    let next = 0;
    cols.push(mask.map((has) => (has ? (values[next++] ?? null) : null)));
  }
  return { ts, cols };
}
