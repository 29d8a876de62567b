import * as tf from "@tensorflow/tfjs";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { Policy, type CreatePolicyOptions } from "../../../src/core/policy/policy.ts";
import type { TrainConfig } from "../../../src/core/policy/train-config.ts";

/** Unit tests run real tfjs math on the wasm backend (the Node default). */
export async function setupBackend(): Promise<void> {
  const choice = await useNodeBackend("wasm");
  if (choice.backend !== "wasm") throw new Error(`expected the wasm backend in tests, got ${choice.reason}`);
}

/** A policy small enough for fast tests: 1 block, 32 wide, context 48. */
export function smallPolicy(vocab: number, seed: number | string, train: Partial<TrainConfig> = {}, extra: Partial<CreatePolicyOptions> = {}): Policy {
  return Policy.create({
    model: { layers: 1, heads: 2, dModel: 32, context: 48, tiedHead: true },
    vocab,
    seed,
    train: { warmupSteps: 0, ...train },
    ...extra,
  });
}

/** Run `f` with the tfjs flag `flag` set to `on`, then set it back on (the speed-ups' default). */
export async function withFlag<T>(flag: string, on: boolean, f: () => T | Promise<T>): Promise<T> {
  tf.env().set(flag, on);
  try {
    return await f();
  } finally {
    tf.env().set(flag, true);
  }
}

/** Where two arrays differ: count and first index (cheap to report, unlike a diff of 100k elements). */
export function differences(x: ArrayLike<number>, y: ArrayLike<number>): { count: number; first: number } {
  let count = x.length === y.length ? 0 : Math.abs(x.length - y.length);
  let first = -1;
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) {
      count++;
      if (first < 0) first = i;
    }
  }
  return { count, first };
}
