/**
 * The sampler's draw in WebAssembly, the same bits as JsDraw (draw.ts):
 *
 *   weigh:  for each allowed token t in order, z_t = logits[t] / temperature (float64) and the max;
 *           then w_t = exp(z_t - max) and total = sum of w_t, in order
 *   pick:   the first allowed token where u - w_1 - w_2 - ... goes below 0 (else the last)
 *   pack:   the allowed set as a bit mask
 *
 * A draw of 252 allowed tokens out of 256 was about a sixth of a sampling call on wasm, half of it
 * Math.exp. The exp here is V8's (src/base/ieee754.cc, FreeBSD's msun e_exp.c, itself fdlibm's),
 * operation for operation in float64 without fused multiply-add, as V8 is compiled; so every weight,
 * total and draw is the one Math.exp gives (tests/unit/policy/kernels/wasm-draw.test.ts: Math.exp against it
 * over millions of inputs and every branch, and rollouts token for token with the flag off and on).
 * Backend-free: the module has a memory of its own, sized per sampling call, whose views are the
 * draw's arrays; a step's logits are copied in once.
 */
import * as tf from "@tensorflow/tfjs";
import type { Draw } from "../draw.ts";
import { registerFlagOnce } from "./wasm-kernels.ts";
import { Code, emitModule, F64, forUp, I32, V128, type FuncDef, type ValType } from "./wasm-emit.ts";

/** tfjs env flag: false keeps the draw in JavaScript (the benchmark's "before", and a check). */
export const WASM_DRAW_FLAG = "A1_WASM_DRAW";
registerFlagOnce(WASM_DRAW_FLAG);

/** A double from its high and low 32-bit words, as fdlibm writes its constants. */
function bits(hi: number, lo: number): number {
  const v = new DataView(new ArrayBuffer(8));
  v.setUint32(0, hi >>> 0);
  v.setUint32(4, lo >>> 0);
  return v.getFloat64(0);
}

const O_THRESHOLD = bits(0x40862e42, 0xfefa39ef);
const U_THRESHOLD = bits(0xc0874910, 0xd52d3051);
const LN2_HI = bits(0x3fe62e42, 0xfee00000);
const LN2_LO = bits(0x3dea39ef, 0x35793c76);
const INV_LN2 = bits(0x3ff71547, 0x652b82fe);
const P1 = bits(0x3fc55555, 0x5555553e);
const P2 = bits(0xbf66c16c, 0x16bebd93);
const P3 = bits(0x3f11566a, 0xaf25de2c);
const P4 = bits(0xbebbbd41, 0xc5d26bf1);
const P5 = bits(0x3e663769, 0x72bea4d0);
const E = bits(0x4005bf0a, 0x8b145769);
const HUGE = 1.0e300;
const TWO_M1000 = bits(0x01700000, 0);
const TWO_1023 = bits(0x7fe00000, 0);

/** The f64 locals (and i32 ones) V8's exp needs; `x` is its argument (clobbered), `r` its result. */
interface ExpLocals {
  x: number;
  r: number;
  hi: number;
  lo: number;
  t: number;
  c: number;
  y: number;
  twopk: number;
  hx: number;
  xsb: number;
  k: number;
}

/**
 * r = exp(x), V8's base::ieee754::exp statement for statement (its comments' names): the overflow and
 * underflow filter, the argument reduction x = k ln2 + r with hi and lo parts, the degree-5 remez
 * polynomial in r^2, and the scaling by 2^k. Branches leave through the outer block (`done`).
 */
function emitExp(c: Code, L: ExpLocals): void {
  c.block(); // done
  // hx = high word of x; xsb = its sign bit; hx = high word of |x|
  c.get(L.x).i64ReinterpretF64().i64(32).i64ShrU().i32WrapI64().set(L.hx);
  c.get(L.hx).i32(31).shrU().set(L.xsb);
  c.get(L.hx).i32(0x7fffffff).and().set(L.hx);
  // The filter of non-finite and huge arguments (|x| >= 709.78...).
  c.get(L.hx).i32(0x40862e42).geU().if();
  {
    c.get(L.hx).i32(0x7ff00000).geU().if();
    {
      // NaN gives x + x; exp(+inf) = inf, exp(-inf) = 0.
      c.get(L.hx).i32(0xfffff).and().get(L.x).i64ReinterpretF64().i32WrapI64().or().if();
      c.get(L.x).get(L.x).f64Add().set(L.r).br(3);
      c.end();
      c.get(L.x).f64Const(0).get(L.xsb).eqz().select().set(L.r).br(2);
    }
    c.end();
    c.get(L.x).f64Const(O_THRESHOLD).f64Gt().if();
    c.f64Const(HUGE).f64Const(HUGE).f64Mul().set(L.r).br(2); // overflow: inf
    c.end();
    c.get(L.x).f64Const(U_THRESHOLD).f64Lt().if();
    c.f64Const(TWO_M1000).f64Const(TWO_M1000).f64Mul().set(L.r).br(2); // underflow: 0
    c.end();
  }
  c.end();
  // Argument reduction.
  c.i32(0).set(L.k).f64Const(0).set(L.hi).f64Const(0).set(L.lo);
  c.get(L.hx).i32(0x3fd62e42).gtU().if(); // |x| > 0.5 ln2
  {
    c.get(L.hx).i32(0x3ff0a2b2).ltU().if(); // and |x| < 1.5 ln2
    {
      c.get(L.x).f64Const(1).f64Eq().if();
      c.f64Const(E).set(L.r).br(3); // V8 returns E for exp(1)
      c.end();
      // hi = x - ln2HI[xsb]; lo = ln2LO[xsb]; k = 1 - xsb - xsb
      c.get(L.x).f64Const(LN2_HI).f64Const(-LN2_HI).get(L.xsb).eqz().select().f64Sub().set(L.hi);
      c.f64Const(LN2_LO).f64Const(-LN2_LO).get(L.xsb).eqz().select().set(L.lo);
      c.i32(1).get(L.xsb).sub().get(L.xsb).sub().set(L.k);
    }
    c.else();
    {
      // k = (int)(invln2 * x + halF[xsb]); t = k; hi = x - t * ln2HI[0]; lo = t * ln2LO[0]
      c.f64Const(INV_LN2).get(L.x).f64Mul().f64Const(0.5).f64Const(-0.5).get(L.xsb).eqz().select().f64Add().i32TruncF64S().set(L.k);
      c.get(L.k).f64ConvertI32S().set(L.t);
      c.get(L.x).get(L.t).f64Const(LN2_HI).f64Mul().f64Sub().set(L.hi);
      c.get(L.t).f64Const(LN2_LO).f64Mul().set(L.lo);
    }
    c.end();
    c.get(L.hi).get(L.lo).f64Sub().set(L.x);
  }
  c.else();
  {
    c.get(L.hx).i32(0x3e300000).ltU().if(); // |x| < 2^-28: 1 + x
    c.f64Const(HUGE).get(L.x).f64Add().f64Const(1).f64Gt().if();
    c.f64Const(1).get(L.x).f64Add().set(L.r).br(3);
    c.end();
    c.end();
  }
  c.end();
  // x is now in the primary range: t = x * x; twopk = 2^k (2^(k + 1000) below -1021)
  c.get(L.x).get(L.x).f64Mul().set(L.t);
  c.get(L.k).i32(-1021).geS().if();
  c.i32(0x3ff00000).get(L.k).i32(20).shl().add();
  c.i64ExtendI32U().i64(32).i64Shl().f64ReinterpretI64().set(L.twopk);
  c.else();
  c.i32(0x3ff00000).get(L.k).i32(1000).add().i32(20).shl().add();
  c.i64ExtendI32U().i64(32).i64Shl().f64ReinterpretI64().set(L.twopk);
  c.end();
  // c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))))
  c.get(L.x).get(L.t).f64Const(P1).get(L.t).f64Const(P2).get(L.t).f64Const(P3).get(L.t).f64Const(P4).get(L.t).f64Const(P5);
  c.f64Mul().f64Add().f64Mul().f64Add().f64Mul().f64Add().f64Mul().f64Add().f64Mul().f64Sub().set(L.c);
  // k == 0: one - ((x * c) / (c - 2.0) - x)
  c.get(L.k).eqz().if();
  c.f64Const(1).get(L.x).get(L.c).f64Mul().get(L.c).f64Const(2).f64Sub().f64Div().get(L.x).f64Sub().f64Sub().set(L.r).br(1);
  c.end();
  // y = one - ((lo - (x * c) / (2.0 - c)) - hi)
  c.f64Const(1).get(L.lo).get(L.x).get(L.c).f64Mul().f64Const(2).get(L.c).f64Sub().f64Div().f64Sub().get(L.hi).f64Sub().f64Sub().set(L.y);
  c.get(L.k).i32(-1021).geS().if();
  {
    c.get(L.k).i32(1024).eq().if();
    c.get(L.y).f64Const(2).f64Mul().f64Const(TWO_1023).f64Mul().set(L.r).br(2);
    c.end();
    c.get(L.y).get(L.twopk).f64Mul().set(L.r).br(1);
  }
  c.end();
  c.get(L.y).get(L.twopk).f64Mul().f64Const(TWO_M1000).f64Mul().set(L.r);
  c.end(); // done
}

/** Locals after `params` i32 params: the exp's, then `extraI32` i32s and `extraF64` f64s. */
function expLocals(first: number): { L: ExpLocals; locals: ValType[] } {
  const f64s = ["x", "r", "hi", "lo", "t", "c", "y", "twopk"] as const;
  const i32s = ["hx", "xsb", "k"] as const;
  const L = {} as Record<string, number>;
  f64s.forEach((n, i) => (L[n] = first + i));
  i32s.forEach((n, i) => (L[n] = first + f64s.length + i));
  return { L: L as unknown as ExpLocals, locals: [...f64s.map((): ValType => F64), ...i32s.map((): ValType => I32)] };
}

/** expMany(src, dst, count): dst[i] = exp(src[i]) over float64 arrays (for tests). */
function expManyFunction(): FuncDef {
  const P = { src: 0, dst: 1, count: 2 };
  const { L, locals } = expLocals(3);
  const c = new Code();
  c.block().loop();
  c.get(P.count).eqz().brIf(1);
  c.get(P.src).f64Load().set(L.x);
  emitExp(c, L);
  c.get(P.dst).get(L.r).f64Store();
  c.get(P.src).i32(8).add().set(P.src);
  c.get(P.dst).i32(8).add().set(P.dst);
  c.get(P.count).i32(1).sub().set(P.count);
  c.br(0).end().end();
  return { name: "expMany", params: [I32, I32, I32], locals, body: c };
}

/**
 * The exp's main path for two arguments at once (f64x2), where both take it: x <= -(the least |x|
 * with high word above 0x3FD62E42), so k = (int)(invln2 * x - 0.5) <= -1 (the |x| < 1.5 ln2 branch's
 * hi, lo and k = -1 are this formula's for t = -1), and x >= -707, so k >= -1021. Lane by lane the
 * scalar path's operations, in its order.
 */
const VEC_MAX = -bits(0x3fd62e43, 0);
const VEC_MIN = -707;

function emitExp2(c: Code, V: Record<"x" | "r" | "k" | "t" | "hi" | "lo" | "tt" | "c" | "y", number>, K: Record<"invln2" | "mhalf" | "ln2hi" | "ln2lo" | "p1" | "p2" | "p3" | "p4" | "p5" | "one" | "two" | "bias", number>): void {
  c.get(K.invln2).get(V.x).f64x2Mul().get(K.mhalf).f64x2Add().i32x4TruncSatF64x2SZero().set(V.k);
  c.get(V.k).f64x2ConvertLowI32x4S().set(V.t);
  c.get(V.x).get(V.t).get(K.ln2hi).f64x2Mul().f64x2Sub().set(V.hi);
  c.get(V.t).get(K.ln2lo).f64x2Mul().set(V.lo);
  c.get(V.hi).get(V.lo).f64x2Sub().set(V.x);
  c.get(V.x).get(V.x).f64x2Mul().set(V.tt);
  c.get(V.x).get(V.tt).get(K.p1).get(V.tt).get(K.p2).get(V.tt).get(K.p3).get(V.tt).get(K.p4).get(V.tt).get(K.p5);
  c.f64x2Mul().f64x2Add().f64x2Mul().f64x2Add().f64x2Mul().f64x2Add().f64x2Mul().f64x2Add().f64x2Mul().f64x2Sub().set(V.c);
  c.get(K.one).get(V.lo).get(V.x).get(V.c).f64x2Mul().get(K.two).get(V.c).f64x2Sub().f64x2Div().f64x2Sub().get(V.hi).f64x2Sub().f64x2Sub().set(V.y);
  // twopk: high word 0x3FF00000 + (k << 20), i.e. the bits (0x3FF + k) << 52
  c.get(V.y).get(V.k).i64x2ExtendLowI32x4S().get(K.bias).i64x2Add().i32(52).i64x2Shl().f64x2Mul().set(V.r);
}

/**
 * The exp's k = 0 path for two arguments at once, where both take it: -(the greatest |x| with high
 * word 0x3FD62E42) <= x <= -2^-28, or x = 0 (the tiny branch's 1 + x is 1 there, and so is this).
 */
const VEC0_MIN = -bits(0x3fd62e42, 0xffffffff);
const VEC0_MAX = -bits(0x3e300000, 0);

function emitExp2K0(c: Code, V: Record<"x" | "r" | "tt" | "c", number>, K: Record<"p1" | "p2" | "p3" | "p4" | "p5" | "one" | "two", number>): void {
  c.get(V.x).get(V.x).f64x2Mul().set(V.tt);
  c.get(V.x).get(V.tt).get(K.p1).get(V.tt).get(K.p2).get(V.tt).get(K.p3).get(V.tt).get(K.p4).get(V.tt).get(K.p5);
  c.f64x2Mul().f64x2Add().f64x2Mul().f64x2Add().f64x2Mul().f64x2Add().f64x2Mul().f64x2Add().f64x2Mul().f64x2Sub().set(V.c);
  // one - ((x * c) / (c - 2.0) - x)
  c.get(K.one).get(V.x).get(V.c).f64x2Mul().get(V.c).get(K.two).f64x2Sub().f64x2Div().get(V.x).f64x2Sub().f64x2Sub().set(V.r);
}

/**
 * weigh(logits, allowed, weight, order, out, V, temperature, zs): order = the allowed tokens; weight[t]
 * = logits[t] / temperature (also zs[i] for the i-th, densely) and max over them, then weight[t] =
 * exp(weight[t] - max) and their total, in order. out: n (i32 at 0), max (f64 at 8), total (f64 at
 * 16); no total when n = 0 or max is not finite (the caller's errors). The exps run two at a time
 * where both arguments take the exp's main path (emitExp2), else one at a time.
 */
function weighFunction(): FuncDef {
  const P = { logits: 0, allowed: 1, weight: 2, order: 3, out: 4, V: 5, temperature: 6, zs: 7 };
  const { L, locals } = expLocals(8);
  let next = 8 + locals.length;
  const Y = { t: next++, n: next++, i: next++, lane: next++, z: next++, max: next++, total: next++ };
  const vecNames = ["x", "r", "k", "t", "hi", "lo", "tt", "c", "y"] as const;
  const constNames = ["invln2", "mhalf", "ln2hi", "ln2lo", "p1", "p2", "p3", "p4", "p5", "one", "two", "bias", "max", "vmax", "vmin", "v0max", "v0min", "zero"] as const;
  const Vv = Object.fromEntries(vecNames.map((n) => [n, next++])) as Record<(typeof vecNames)[number], number>;
  const K = Object.fromEntries(constNames.map((n) => [n, next++])) as Record<(typeof constNames)[number], number>;
  const c = new Code();
  c.i32(0).set(Y.n).f64Const(-Infinity).set(Y.max);
  forUp(c, Y.t, (c) => c.i32(0), P.V, (c) => {
    c.get(P.allowed).get(Y.t).add().i32Load8U().if();
    c.get(P.order).get(Y.n).i32(4).mul().add().get(Y.t).i32Store();
    c.get(P.logits).get(Y.t).i32(4).mul().add().f32Load().f64PromoteF32().get(P.temperature).f64Div().set(Y.z);
    c.get(P.weight).get(Y.t).i32(8).mul().add().get(Y.z).f64Store();
    c.get(P.zs).get(Y.n).i32(8).mul().add().get(Y.z).f64Store();
    c.get(Y.n).i32(1).add().set(Y.n);
    c.get(Y.z).get(Y.max).get(Y.z).get(Y.max).f64Gt().select().set(Y.max);
    c.end();
  });
  c.get(P.out).get(Y.n).i32Store();
  c.get(P.out).get(Y.max).f64Store(8);
  c.get(Y.n).eqz().if().return().end();
  c.get(Y.max).get(Y.max).f64Sub().f64Const(0).f64Eq().eqz().if().return().end(); // inf - inf is NaN
  const splat = (x: number, local: number) => c.f64Const(x).f64x2Splat().set(local);
  [
    [INV_LN2, K.invln2],
    [-0.5, K.mhalf],
    [LN2_HI, K.ln2hi],
    [LN2_LO, K.ln2lo],
    [P1, K.p1],
    [P2, K.p2],
    [P3, K.p3],
    [P4, K.p4],
    [P5, K.p5],
    [1, K.one],
    [2, K.two],
    [VEC_MAX, K.vmax],
    [VEC_MIN, K.vmin],
    [VEC0_MAX, K.v0max],
    [VEC0_MIN, K.v0min],
    [0, K.zero],
  ].forEach(([x, local]) => splat(x, local));
  c.get(Y.max).f64x2Splat().set(K.max);
  c.i64(0x3ff).i64x2Splat().set(K.bias);
  /** weight[order[i + lane]] = r; total += r (`r` on the stack is stored in local L.r first). */
  const emitResult = (lane: number) => {
    c.set(L.r);
    c.get(P.weight).get(P.order).get(Y.i).i32(4).mul().add().i32Load(4 * lane).i32(8).mul().add().get(L.r).f64Store();
    c.get(Y.total).get(L.r).f64Add().set(Y.total);
  };
  c.f64Const(0).set(Y.total).i32(0).set(Y.i);
  c.block().loop();
  c.get(Y.i).i32(1).add().get(Y.n).geU().brIf(1);
  c.get(P.zs).get(Y.i).i32(8).mul().add().v128Load().get(K.max).f64x2Sub().set(Vv.x);
  const results = () => {
    for (const lane of [0, 1]) {
      c.get(Vv.r).f64x2ExtractLane(lane);
      emitResult(lane);
    }
  };
  c.get(Vv.x).get(K.vmax).f64x2Le().get(Vv.x).get(K.vmin).f64x2Ge().v128And().i64x2AllTrue().if();
  emitExp2(c, Vv, K);
  results();
  c.else();
  c.get(Vv.x).get(K.v0max).f64x2Le().get(Vv.x).get(K.zero).f64x2Eq().v128Or().get(Vv.x).get(K.v0min).f64x2Ge().v128And().i64x2AllTrue().if();
  emitExp2K0(c, Vv, K);
  results();
  c.else();
  for (const lane of [0, 1]) {
    c.get(Vv.x).f64x2ExtractLane(lane).set(L.x);
    emitExp(c, L);
    c.get(L.r);
    emitResult(lane);
  }
  c.end();
  c.end();
  c.get(Y.i).i32(2).add().set(Y.i);
  c.br(0).end().end();
  // The last one when n is odd.
  c.get(Y.i).get(Y.n).ltU().if();
  c.get(P.zs).get(Y.i).i32(8).mul().add().f64Load().get(Y.max).f64Sub().set(L.x);
  emitExp(c, L);
  c.get(L.r);
  emitResult(0);
  c.end();
  c.get(P.out).get(Y.total).f64Store(16);
  return {
    name: "weigh",
    params: [I32, I32, I32, I32, I32, I32, F64, I32],
    locals: [...locals, I32, I32, I32, I32, F64, F64, F64, ...vecNames.map((): ValType => V128), ...constNames.map((): ValType => V128)],
    body: c,
  };
}

/** pick(u, n, weight, order, out): the token (i32 at out + 24) where u - weight[order[0]] - ... first goes below 0, else order[n - 1]. */
function pickFunction(): FuncDef {
  const P = { u: 0, n: 1, weight: 2, order: 3, out: 4 };
  const L = { i: 5, t: 6 };
  const c = new Code();
  c.get(P.out).get(P.order).get(P.n).i32(1).sub().i32(4).mul().add().i32Load().i32Store(24);
  forUp(c, L.i, (c) => c.i32(0), P.n, (c) => {
    c.get(P.order).get(L.i).i32(4).mul().add().i32Load().set(L.t);
    c.get(P.u).get(P.weight).get(L.t).i32(8).mul().add().f64Load().f64Sub().set(P.u);
    c.get(P.u).f64Const(0).f64Lt().if();
    c.get(P.out).get(L.t).i32Store(24).br(2); // out of the loop
    c.end();
  });
  return { name: "pick", params: [F64, I32, I32, I32, I32], locals: [I32, I32], body: c };
}

/** pack(n, order, dst, W): the W bytes at dst = the bit mask of order[0..n). */
function packFunction(): FuncDef {
  const P = { n: 0, order: 1, dst: 2, W: 3 };
  const L = { t: 4, a: 5 };
  const c = new Code();
  c.get(P.dst).i32(0).get(P.W).memoryFill();
  c.block().loop();
  c.get(P.n).eqz().brIf(1);
  c.get(P.order).i32Load().set(L.t);
  c.get(P.dst).get(L.t).i32(3).shrU().add().set(L.a);
  c.get(L.a).get(L.a).i32Load8U().i32(1).get(L.t).i32(7).and().shl().or().i32Store8();
  c.get(P.order).i32(4).add().set(P.order);
  c.get(P.n).i32(1).sub().set(P.n);
  c.br(0).end().end();
  return { name: "pack", params: [I32, I32, I32, I32], locals: [I32, I32], body: c };
}

interface DrawExports {
  weigh(logits: number, allowed: number, weight: number, order: number, out: number, V: number, temperature: number, zs: number): void;
  pick(u: number, n: number, weight: number, order: number, out: number): void;
  pack(n: number, order: number, dst: number, W: number): void;
  expMany(src: number, dst: number, count: number): void;
}

let compiled: WebAssembly.Module | null | undefined;
function drawModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(emitModule([weighFunction(), pickFunction(), packFunction(), expManyFunction()], { shared: false }));
    } catch {
      compiled = null; // no WebAssembly here: the draw stays in JavaScript
    }
  }
  return compiled;
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/**
 * The draw (draw.ts) for a sampling call of up to `rows` rows over V tokens, in a memory of its own:
 * `allowed`, `weight` and `order` are views of it, and a step's logits are copied into it.
 */
export class WasmDraw implements Draw {
  readonly allowed: Uint8Array;
  readonly weight: Float64Array;
  readonly order: Int32Array;
  private readonly logits: Float32Array;
  private readonly k: DrawExports;
  private readonly out32: Int32Array;
  private readonly out64: Float64Array;
  private readonly packed: Uint8Array;
  private readonly at: { weight: number; order: number; zs: number; allowed: number; packed: number; logits: number };

  /** A draw for `rows` rows of V tokens, or null where it cannot run (flag off, no WebAssembly). */
  static create(rows: number, V: number): WasmDraw | null {
    if (!tf.env().getBool(WASM_DRAW_FLAG)) return null;
    const module = drawModule();
    return module ? new WasmDraw(module, rows, V) : null;
  }

  private constructor(
    module: WebAssembly.Module,
    rows: number,
    readonly V: number,
  ) {
    const W = Math.ceil(V / 8);
    // out (n, max, total, token), weight (f64), order (i32), zs (f64), allowed (u8), packed (u8), logits (f32)
    const weight = 32;
    const order = weight + 8 * V;
    const zs = align8(order + 4 * V);
    const allowed = zs + 8 * V;
    const packed = align8(allowed + V);
    const logits = align8(packed + W);
    const bytes = logits + 4 * rows * V;
    const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / 65536) });
    this.k = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as DrawExports;
    const buf = memory.buffer;
    this.at = { weight, order, zs, allowed, packed, logits };
    this.out32 = new Int32Array(buf, 0, 8);
    this.out64 = new Float64Array(buf, 0, 4);
    this.weight = new Float64Array(buf, weight, V);
    this.order = new Int32Array(buf, order, V);
    this.allowed = new Uint8Array(buf, allowed, V);
    this.packed = new Uint8Array(buf, packed, W);
    this.logits = new Float32Array(buf, logits, rows * V);
  }

  load(logits: Float32Array): void {
    this.logits.set(logits);
  }
  weigh(from: number, temperature: number): number {
    this.k.weigh(this.at.logits + 4 * from, this.at.allowed, this.at.weight, this.at.order, 0, this.V, temperature, this.at.zs);
    return this.out32[0];
  }
  get max(): number {
    return this.out64[1];
  }
  get total(): number {
    return this.out64[2];
  }
  pick(u: number, n: number): number {
    this.k.pick(u, n, this.at.weight, this.at.order, 0);
    return this.out32[6];
  }
  pack(n: number, dst: Uint8Array, at: number): void {
    this.k.pack(n, this.at.order, this.at.packed, this.packed.length);
    const p = this.packed;
    for (let i = 0; i < p.length; i++) dst[at + i] |= p[i];
  }
}

/** exp over `xs` by the module's exp (for tests: it must equal Math.exp bit for bit). */
export function wasmExp(xs: Float64Array): Float64Array {
  const module = drawModule();
  if (!module) throw new Error("no WebAssembly in this engine");
  const memory = new WebAssembly.Memory({ initial: Math.ceil((16 * xs.length + 8) / 65536) });
  const k = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as DrawExports;
  new Float64Array(memory.buffer, 0, xs.length).set(xs);
  k.expMany(0, 8 * xs.length, xs.length);
  return new Float64Array(memory.buffer, 8 * xs.length, xs.length).slice();
}
