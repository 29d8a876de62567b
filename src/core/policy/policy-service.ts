/**
 * One Policy behind a message boundary: what workers/policy.worker.ts exposes with comlink, and what
 * Node code can use in-thread through the same interface (one interface, two hosts).
 *
 * Everything crossing the boundary is structured-clonable: grammars are named by a ConstraintSpec and
 * built on this side from a registry (a grammar object cannot cross threads, and calling back into
 * the main thread per token would dominate sampling); random streams travel as RngState and come
 * back advanced, so a run's randomness stays reproducible whichever side samples.
 */
import type { TokenConstraint } from "../decoding.ts";
import * as tf from "@tensorflow/tfjs";
import { getThreadsCount, setThreadsCount } from "@tensorflow/tfjs-backend-wasm";
import { Rng, type RngState } from "../rng.ts";
import { type BackendChoice, type BackendName, chooseBackend, selectBackend, WASM_SPEEDUP_FLAGS } from "./backend.ts";
import type { BackendPreference } from "./backend-choice.ts";
import type { GrpoSample } from "./batch.ts";
import { type CreatePolicyOptions, Policy, POLICY_SPEEDUP_FLAGS, type UpdateMetrics } from "./policy.ts";
import type { Rollout } from "./sampler.ts";
import { ToyConstraint } from "./toy-constraint.ts";
import type { TrainConfig } from "./train-config.ts";
import type { ModelConfig } from "./config.ts";

/** A grammar by name plus its parameters, built by the registry on the policy's side. */
export interface ConstraintSpec {
  kind: string;
  params?: Record<string, unknown>;
}

/** Builds a constraint from its parameters; the arena registers "code" and "suite" here. */
export type ConstraintFactory = (params: Record<string, unknown>) => TokenConstraint<unknown>;

/** The grammars every host knows: the toy grammar of tests and benchmarks. */
export const BUILTIN_CONSTRAINTS: Record<string, ConstraintFactory> = {
  toy: (p) => new ToyConstraint(Number(p.vocab), p.minLength === undefined ? 1 : Number(p.minLength), p.maxLength === undefined ? 8 : Number(p.maxLength)),
};

export interface ServiceSampleOptions {
  maxNewTokens: number;
  temperature?: number;
  topP?: number;
  kvCache?: boolean;
  sharePrefill?: boolean;
  dropFinished?: boolean;
  skipPadding?: boolean;
  /** Random stream to draw from; the advanced state comes back with the rollout. */
  rngState: RngState;
}

export interface PolicyInfo {
  config: ModelConfig;
  train: TrainConfig;
  numParams: number;
  optimizerStep: number;
  backend: string;
}

export class PolicyNotReadyError extends Error {
  override name = "PolicyNotReadyError";
}

export interface InitOptions {
  /**
   * Threads of tfjs's wasm backend. Above 1 asks for tfjs's multi-threaded SIMD build with that many
   * XNNPACK threads (SharedArrayBuffer: a cross-origin isolated page); 1 for the single-threaded
   * build. A measurement switch (npm run bench -- policy, chromium-wasm): the app's policy worker keeps
   * the single-threaded build (the threaded one's pthread workers fail once bundled), and tfjs has no
   * threaded build in Node.
   */
  wasmThreads?: number;
  /**
   * false: the wasm backend's speed-ups off (tfjs's own kernels, the head at every position); true:
   * on (their default). For side-by-side measurements: results are the same bits either way.
   */
  wasmSpeedups?: boolean;
}

function flagExists(flag: string): boolean {
  try {
    tf.env().get(flag);
    return true;
  } catch {
    return false;
  }
}

/**
 * The wasm backend's XNNPACK threads, asked of the running module itself (tfjs's getThreadsCount
 * reads a variable of the package copy it was imported from).
 */
function wasmThreadsNow(): number {
  const own = (tf.backend() as unknown as { wasm?: { tfjs?: { getThreadsCount?: () => number } } }).wasm?.tfjs?.getThreadsCount;
  return typeof own === "function" ? own() : getThreadsCount();
}

export class PolicyService {
  private policy: Policy | null = null;
  private backendChoice: BackendChoice | null = null;
  private readonly constraints: Record<string, ConstraintFactory>;

  constructor(constraints: Record<string, ConstraintFactory> = {}) {
    this.constraints = { ...BUILTIN_CONSTRAINTS, ...constraints };
  }

  /**
   * Pick the tfjs backend, once before create/load: by preference ("auto" never trains on a software
   * WebGPU adapter, see backend-choice.ts), or the first of an explicit order that starts.
   */
  async init(choice: BackendPreference | BackendName[] = "auto", opts: InitOptions = {}): Promise<BackendChoice> {
    if (opts.wasmThreads !== undefined) {
      const n = opts.wasmThreads;
      if (!Number.isInteger(n) || n < 1) throw new RangeError(`wasmThreads must be a positive integer, got ${n}`);
      if (n > 1 && tf.env().getBool("IS_NODE")) throw new RangeError("wasmThreads > 1: tfjs has no multi-threaded wasm build in Node");
      tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", n > 1);
      setThreadsCount(n);
    }
    const picked = typeof choice === "string" ? await chooseBackend(choice) : await selectBackend(choice);
    if (picked.backend === "wasm" && opts.wasmSpeedups !== undefined) {
      // The flags exist once their kernels are installed (selectBackend).
      for (const flag of [...WASM_SPEEDUP_FLAGS, ...POLICY_SPEEDUP_FLAGS]) if (flagExists(flag)) tf.env().set(flag, opts.wasmSpeedups);
    }
    this.backendChoice = picked.backend === "wasm" ? { ...picked, wasmThreads: wasmThreadsNow() } : picked;
    return this.backendChoice;
  }

  async create(opts: CreatePolicyOptions): Promise<PolicyInfo> {
    this.requireBackend();
    this.policy?.dispose();
    this.policy = Policy.create(opts);
    return this.info();
  }

  async load(checkpoint: ArrayBuffer, trainOverrides?: Partial<TrainConfig>): Promise<PolicyInfo> {
    this.requireBackend();
    this.policy?.dispose();
    this.policy = Policy.load(checkpoint, trainOverrides);
    return this.info();
  }

  info(): PolicyInfo {
    const p = this.require();
    return { config: p.config, train: p.train, numParams: p.numParams, optimizerStep: p.optimizerStep, backend: this.backendChoice!.backend };
  }

  /** `constraint`: one grammar for all rows, or one per row (built once per distinct spec). */
  async sample(prompts: number[][], constraint: ConstraintSpec | ConstraintSpec[], opts: ServiceSampleOptions): Promise<{ rollout: Rollout; rngState: RngState }> {
    const specs = Array.isArray(constraint) ? constraint : [constraint];
    const built = new Map<string, TokenConstraint<unknown>>();
    const grammars = specs.map((spec) => {
      const key = JSON.stringify(spec);
      let c = built.get(key);
      if (!c) {
        const factory = this.constraints[spec.kind];
        if (!factory) {
          throw new RangeError(`unknown constraint kind "${spec.kind}": this host knows ${Object.keys(this.constraints).join(", ")}`);
        }
        c = factory(spec.params ?? {});
        built.set(key, c);
      }
      return c;
    });
    const rng = Rng.fromState(opts.rngState);
    const rollout = await this.require().sample(prompts, Array.isArray(constraint) ? grammars : grammars[0], { ...opts, rng });
    return { rollout, rngState: rng.state() };
  }

  async update(samples: GrpoSample[], rngState: RngState): Promise<{ metrics: UpdateMetrics; rngState: RngState }> {
    const rng = Rng.fromState(rngState);
    const metrics = await this.require().update(samples, rng);
    return { metrics, rngState: rng.state() };
  }

  pretrainStep(sequences: number[][], completionStart?: number[]): Promise<{ loss: number; gradNorm: number; lr: number }> {
    return this.require().pretrainStep(sequences, completionStart);
  }

  completionLogProbs(samples: GrpoSample[]): Promise<Float32Array[]> {
    return this.require().completionLogProbs(samples);
  }

  setReference(): Promise<void> {
    return this.require().setReference();
  }

  save(): Promise<ArrayBuffer> {
    return this.require().save();
  }

  dispose(): void {
    this.policy?.dispose();
    this.policy = null;
  }

  private requireBackend(): void {
    if (!this.backendChoice) throw new PolicyNotReadyError("call init() to choose a tfjs backend before creating or loading a policy");
  }

  private require(): Policy {
    if (!this.policy) throw new PolicyNotReadyError("no policy yet: call create() or load() first");
    return this.policy;
  }
}
