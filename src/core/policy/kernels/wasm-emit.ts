/**
 * A small WebAssembly binary emitter: enough of the format (types, one imported memory, functions,
 * exports) and of the instruction set (i32 control flow and arithmetic, f32, f64 and f32x4 loads,
 * stores, arithmetic and comparisons, the i64 moves that read and build a double's bits, memory.copy
 * and memory.fill) to write the wasm backend's kernels as TypeScript that unrolls their register tiles:
 * wasm-matmul.ts, wasm-decode-attention.ts, wasm-copy.ts, wasm-sum.ts, wasm-embedding.ts, and the
 * sampler's draw, wasm-draw.ts. The bytes are built at run time: no build step, no binary in the repo.
 * Opcodes: WebAssembly Core Specification 2.0, section 5 (binary format), with the SIMD (0xFD) and
 * bulk-memory (0xFC) prefixes.
 */

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;
export const F64 = 0x7c;
export const I64 = 0x7e;
export type ValType = typeof I32 | typeof F32 | typeof V128 | typeof F64 | typeof I64;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    const done = (n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const utf8 = (s: string) => [...new TextEncoder().encode(s)];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];

/** Instructions as byte arrays; `Code` collects them in order. */
export class Code {
  readonly bytes: number[] = [];
  private emit(...b: number[]): this {
    for (const x of b) this.bytes.push(x);
    return this;
  }
  // --- control (block type 0x40: no result) ---
  block(): this {
    return this.emit(0x02, 0x40);
  }
  loop(): this {
    return this.emit(0x03, 0x40);
  }
  /** `if` (pops an i32) ... `else` ... `end`; a label like block's. */
  if(): this {
    return this.emit(0x04, 0x40);
  }
  else(): this {
    return this.emit(0x05);
  }
  return(): this {
    return this.emit(0x0f);
  }
  end(): this {
    return this.emit(0x0b);
  }
  br(depth: number): this {
    return this.emit(0x0c, ...uleb(depth));
  }
  brIf(depth: number): this {
    return this.emit(0x0d, ...uleb(depth));
  }
  // --- locals ---
  get(i: number): this {
    return this.emit(0x20, ...uleb(i));
  }
  set(i: number): this {
    return this.emit(0x21, ...uleb(i));
  }
  // --- i32 ---
  i32(n: number): this {
    return this.emit(0x41, ...sleb(n | 0));
  }
  add(): this {
    return this.emit(0x6a);
  }
  sub(): this {
    return this.emit(0x6b);
  }
  mul(): this {
    return this.emit(0x6c);
  }
  geU(): this {
    return this.emit(0x4f);
  }
  gtU(): this {
    return this.emit(0x4b);
  }
  ltU(): this {
    return this.emit(0x49);
  }
  /** Signed comparisons, and inequality. */
  lt(): this {
    return this.emit(0x48);
  }
  gt(): this {
    return this.emit(0x4a);
  }
  le(): this {
    return this.emit(0x4c);
  }
  ne(): this {
    return this.emit(0x47);
  }
  eqz(): this {
    return this.emit(0x45);
  }
  divU(): this {
    return this.emit(0x6e);
  }
  eq(): this {
    return this.emit(0x46);
  }
  geS(): this {
    return this.emit(0x4e);
  }
  and(): this {
    return this.emit(0x71);
  }
  or(): this {
    return this.emit(0x72);
  }
  shl(): this {
    return this.emit(0x74);
  }
  shrU(): this {
    return this.emit(0x76);
  }
  select(): this {
    return this.emit(0x1b);
  }
  // --- f32 (memarg: align 2^2, offset) ---
  f32Load(offset = 0): this {
    return this.emit(0x2a, 2, ...uleb(offset));
  }
  f32Store(offset = 0): this {
    return this.emit(0x38, 2, ...uleb(offset));
  }
  f32Add(): this {
    return this.emit(0x92);
  }
  f32Mul(): this {
    return this.emit(0x94);
  }
  f32Sub(): this {
    return this.emit(0x93);
  }
  f32Div(): this {
    return this.emit(0x95);
  }
  f32Sqrt(): this {
    return this.emit(0x91);
  }
  f32Zero(): this {
    return this.emit(0x43, 0, 0, 0, 0);
  }
  /** f32.const of `x` rounded to float32. */
  f32Const(x: number): this {
    return this.emit(0x43, ...new Uint8Array(Float32Array.of(x).buffer));
  }
  f32Eq(): this {
    return this.emit(0x5b);
  }
  f32Gt(): this {
    return this.emit(0x5e);
  }
  // --- f32x4 (alignment hint 4 bytes: tensors are only float-aligned) ---
  v128Load(offset = 0): this {
    return this.emit(0xfd, ...uleb(0x00), 2, ...uleb(offset));
  }
  v128Load32Splat(offset = 0): this {
    return this.emit(0xfd, ...uleb(0x09), 2, ...uleb(offset));
  }
  v128Store(offset = 0): this {
    return this.emit(0xfd, ...uleb(0x0b), 2, ...uleb(offset));
  }
  v128Zero(): this {
    return this.emit(0xfd, ...uleb(0x0c), ...new Array<number>(16).fill(0));
  }
  f32x4Add(): this {
    return this.emit(0xfd, ...uleb(0xe4));
  }
  f32x4Mul(): this {
    return this.emit(0xfd, ...uleb(0xe6));
  }
  f32x4Sub(): this {
    return this.emit(0xfd, ...uleb(0xe5));
  }
  f32x4Div(): this {
    return this.emit(0xfd, ...uleb(0xe7));
  }
  f32x4Splat(): this {
    return this.emit(0xfd, ...uleb(0x13));
  }
  // --- f64x2 and the i64x2 and i32x4 conversions that build 2^k from k ---
  f64x2Splat(): this {
    return this.emit(0xfd, ...uleb(0x14));
  }
  f64x2ExtractLane(lane: number): this {
    return this.emit(0xfd, ...uleb(0x21), lane);
  }
  f64x2Eq(): this {
    return this.emit(0xfd, ...uleb(0x47));
  }
  v128Or(): this {
    return this.emit(0xfd, ...uleb(0x50));
  }
  f64x2Le(): this {
    return this.emit(0xfd, ...uleb(0x4b));
  }
  f64x2Ge(): this {
    return this.emit(0xfd, ...uleb(0x4c));
  }
  v128And(): this {
    return this.emit(0xfd, ...uleb(0x4e));
  }
  i64x2AllTrue(): this {
    return this.emit(0xfd, ...uleb(0xc3));
  }
  i64x2ExtendLowI32x4S(): this {
    return this.emit(0xfd, ...uleb(0xc7));
  }
  i64x2Shl(): this {
    return this.emit(0xfd, ...uleb(0xcb));
  }
  i64x2Add(): this {
    return this.emit(0xfd, ...uleb(0xce));
  }
  i64x2Splat(): this {
    return this.emit(0xfd, ...uleb(0x12));
  }
  f64x2Add(): this {
    return this.emit(0xfd, ...uleb(0xf0));
  }
  f64x2Sub(): this {
    return this.emit(0xfd, ...uleb(0xf1));
  }
  f64x2Mul(): this {
    return this.emit(0xfd, ...uleb(0xf2));
  }
  f64x2Div(): this {
    return this.emit(0xfd, ...uleb(0xf3));
  }
  /** Truncation toward zero into lanes 0 and 1 (saturating; lanes 2 and 3 zero). */
  i32x4TruncSatF64x2SZero(): this {
    return this.emit(0xfd, ...uleb(0xfc));
  }
  f64x2ConvertLowI32x4S(): this {
    return this.emit(0xfd, ...uleb(0xfe));
  }
  i32Load(offset = 0): this {
    return this.emit(0x28, 2, ...uleb(offset));
  }
  i32Store(offset = 0): this {
    return this.emit(0x36, 2, ...uleb(offset));
  }
  i32Load8U(offset = 0): this {
    return this.emit(0x2d, 0, ...uleb(offset));
  }
  i32Store8(offset = 0): this {
    return this.emit(0x3a, 0, ...uleb(offset));
  }
  // --- f64 (memarg: align 2^3, offset) and the i64 bit moves that get at a double's words ---
  f64Load(offset = 0): this {
    return this.emit(0x2b, 3, ...uleb(offset));
  }
  f64Store(offset = 0): this {
    return this.emit(0x39, 3, ...uleb(offset));
  }
  /** f64.const of `x`, every bit. */
  f64Const(x: number): this {
    return this.emit(0x44, ...new Uint8Array(Float64Array.of(x).buffer));
  }
  f64Add(): this {
    return this.emit(0xa0);
  }
  f64Sub(): this {
    return this.emit(0xa1);
  }
  f64Mul(): this {
    return this.emit(0xa2);
  }
  f64Div(): this {
    return this.emit(0xa3);
  }
  f64Eq(): this {
    return this.emit(0x61);
  }
  f64Lt(): this {
    return this.emit(0x63);
  }
  f64Gt(): this {
    return this.emit(0x64);
  }
  f64PromoteF32(): this {
    return this.emit(0xbb);
  }
  f64ConvertI32S(): this {
    return this.emit(0xb7);
  }
  /** Truncation toward zero (C's cast to int); traps outside the i32 range. */
  i32TruncF64S(): this {
    return this.emit(0xaa);
  }
  i64(n: number): this {
    return this.emit(0x42, ...sleb(n | 0));
  }
  i64ShrU(): this {
    return this.emit(0x88);
  }
  i64Shl(): this {
    return this.emit(0x86);
  }
  i32WrapI64(): this {
    return this.emit(0xa7);
  }
  i64ExtendI32U(): this {
    return this.emit(0xad);
  }
  i64ReinterpretF64(): this {
    return this.emit(0xbd);
  }
  f64ReinterpretI64(): this {
    return this.emit(0xbf);
  }
  // --- bulk memory: memory.copy(dest, src, size) and memory.fill(dest, value, size) ---
  memoryCopy(): this {
    return this.emit(0xfc, ...uleb(10), 0x00, 0x00);
  }
  memoryFill(): this {
    return this.emit(0xfc, ...uleb(11), 0x00);
  }
}

/** `for (; counter != 0; counter--) body`: the kernels' loop over a count held in an i32 local. */
export function whileNonZero(c: Code, counter: number, body: (c: Code) => void): void {
  c.block().loop();
  c.get(counter).eqz().brIf(1);
  body(c);
  c.get(counter).i32(1).sub().set(counter);
  c.br(0).end().end();
}

/** `for (counter = from; counter < limit; counter++) body`, unsigned; `from` pushes the start value. */
export function forUp(c: Code, counter: number, from: (c: Code) => void, limit: number, body: (c: Code) => void): void {
  from(c);
  c.set(counter);
  c.block().loop();
  c.get(counter).get(limit).geU().brIf(1);
  body(c);
  c.get(counter).i32(1).add().set(counter);
  c.br(0).end().end();
}

export interface FuncDef {
  name: string;
  params: ValType[];
  /** Extra locals, in order after the params. */
  locals: ValType[];
  body: Code;
}

/** A module importing `env.memory` (shared when `shared`: then its maximum must be declared) and exporting `funcs`. */
export function emitModule(funcs: FuncDef[], memory: { shared: boolean }): Uint8Array<ArrayBuffer> {
  const types = section(1, vec(funcs.map((f) => [0x60, ...vec(f.params.map((t) => [t])), ...uleb(0)])));
  const limits = memory.shared ? [0x03, ...uleb(0), ...uleb(65536)] : [0x00, ...uleb(0)];
  const name = (s: string) => [...uleb(utf8(s).length), ...utf8(s)];
  const imports = section(2, vec([[...name("env"), ...name("memory"), 0x02, ...limits]]));
  const functions = section(3, vec(funcs.map((_, i) => uleb(i))));
  const exports = section(7, vec(funcs.map((f, i) => [...name(f.name), 0x00, ...uleb(i)])));
  const bodies = funcs.map((f) => {
    const groups: number[][] = [];
    for (let i = 0; i < f.locals.length; ) {
      let n = 1;
      while (i + n < f.locals.length && f.locals[i + n] === f.locals[i]) n++;
      groups.push([...uleb(n), f.locals[i]]);
      i += n;
    }
    const body = [...vec(groups), ...f.body.bytes, 0x0b];
    return [...uleb(body.length), ...body];
  });
  const code = section(10, vec(bodies));
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...imports, ...functions, ...exports, ...code]);
}
