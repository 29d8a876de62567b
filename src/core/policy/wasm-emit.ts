/**
 * A small WebAssembly binary emitter: enough of the format (types, one imported memory, functions,
 * exports) and of the instruction set (i32 control flow and arithmetic, f32 and f32x4 loads, stores,
 * arithmetic and comparisons, memory.copy and memory.fill) to write the wasm backend's kernels as TypeScript
 * that unrolls their register tiles: wasm-matmul.ts, wasm-decode-attention.ts, wasm-copy.ts,
 * wasm-sum.ts, wasm-embedding.ts. The bytes are built at run time: no build step, no binary in the repo.
 * Opcodes: WebAssembly Core Specification 2.0, section 5 (binary format), with the SIMD (0xFD) and
 * bulk-memory (0xFC) prefixes.
 */

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;
export type ValType = typeof I32 | typeof F32 | typeof V128;

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
  i32Load(offset = 0): this {
    return this.emit(0x28, 2, ...uleb(offset));
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
