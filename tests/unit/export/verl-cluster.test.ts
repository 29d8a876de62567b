/**
 * The export on several cluster shapes: every YAML it writes must run in the reference (each batch
 * splits evenly over each model's GPUs, the pools fit on the nodes, the epochs reach the steps
 * with drop_last), re-derived here from the YAML's own keys; what cannot run is refused with the
 * reason and the nearest valid choice; what the export adjusted is said.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strFromU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { arenaV2 } from "../../../src/core/arena/arena-v2.ts";
import { presetConfig, type Config } from "../../../src/core/config/index.ts";
import { buildVerlExport, VERL_CONFIG_FILE } from "../../../src/core/export/verl.ts";

const REWARD = readFileSync(new URL("../../../src/core/export/arena_reward.py", import.meta.url), "utf8");
const PY = "/usr/bin/python3";
const hasYaml = spawnSync(PY, ["-c", "import yaml"]).status === 0;

type Doc = Record<string, unknown>;
const at = (doc: Doc, key: string) => key.split(".").reduce<unknown>((o, k) => (o as Doc)[k], doc) as number;

/** The YAML as PyYAML reads it (main_a1.py reads it with OmegaConf, a YAML 1.1 reader too). */
function readYaml(text: string): Doc {
  const res = spawnSync(PY, ["-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))"], { input: text, encoding: "utf8" });
  expect(res.stderr).toBe("");
  return JSON.parse(res.stdout) as Doc;
}

/** What the reference would trip on, from the YAML alone (the rules of verl-cluster.ts, derived again from the keys). */
function referenceFailures(doc: Doc, trainRows: number, cluster: { nnodes: number; gpusPerNode: number }): string[] {
  const T = at(doc, "data.train_batch_size");
  const nA = at(doc, "actor_rollout_ref.rollout.n");
  const nB = at(doc, "other.actor_rollout_ref.rollout.n");
  const u = at(doc, "other.update_n");
  const M = at(doc, "actor_rollout_ref.actor.ppo_mini_batch_size");
  const micro = at(doc, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu");
  const nodes = at(doc, "trainer.nnodes");
  const gA = at(doc, "trainer.n_gpus_per_node");
  const gB = at(doc, "other.trainer.n_gpus_per_node");
  const out: string[] = [];
  // Both pools' placement groups (one per pool per node, g GPUs each, packed on one node) on the cluster.
  const slots = cluster.nnodes * Math.floor(cluster.gpusPerNode / gA);
  if (gA !== gB || nodes * 2 > slots) out.push(`pools ${nodes}x${gA} + ${nodes}x${gB} do not fit ${cluster.nnodes}x${cluster.gpusPerNode}`);
  for (const [name, n, W] of [
    ["A prompts", T, nodes * gA],
    ["A sequences", T * nA, nodes * gA],
    ["B prompts", T * nA, nodes * gB],
    ["B update", T * Math.min(u, nA) * nB, nodes * gB],
    ["A mini-batch", M * nA, nodes * gA],
    ["B mini-batch", M * nB, nodes * gB],
  ] as const) {
    if (n % W !== 0) out.push(`${name} ${n} over ${W}`);
  }
  if (((M * nA) / (nodes * gA)) % micro !== 0 || ((M * nB) / (nodes * gB)) % micro !== 0) out.push("micro-batch");
  if (T * (trainRows === 0 ? 0 : 1) > trainRows) out.push("empty dataloader");
  const perEpoch = Math.floor(trainRows / T);
  const steps = at(doc, "trainer.total_training_steps");
  const epochs = at(doc, "trainer.total_epochs");
  if (epochs * perEpoch < steps) out.push(`${epochs} epochs x ${perEpoch} steps < ${steps}`);
  if ((epochs - 1) * perEpoch >= steps) out.push("more epochs than needed");
  if (at(doc, "reward_model.reward_kwargs.mistake_book_top_k") > 8) out.push("top-k above the reference's 8");
  return out;
}

const v1 = arenaV1();
const v2 = arenaV2();
const build = (config: Config, cluster: { nnodes: number; gpusPerNode: number }, file = v2) =>
  buildVerlExport({ file, config, preset: "x", rewardModule: REWARD, nnodes: cluster.nnodes, gpusPerNode: cluster.gpusPerNode });

describe("verl export: cluster shapes", () => {
  const configs: [string, Config, typeof v2][] = [
    ["classroom", presetConfig("classroom"), v2],
    ["paper-mini", presetConfig("paper-mini"), v2],
    ["paper-mini, TopVar top-3, 3 mini-batches of 9 tasks", presetConfig("paper-mini", { topvar_k: 3, tasks_per_step: 9, mini_batches: 3 }), v2],
    ["classroom on arena-v1, 6 tasks x 5 codes x 3 suites, all train tasks", presetConfig("classroom", { tasks_per_step: 6, num_generations: 5, suites_per_code: 3, train_tasks: 0, mini_batches: 1 }), v1],
  ];
  const clusters = [{ nnodes: 1, gpusPerNode: 8 }, { nnodes: 1, gpusPerNode: 2 }, { nnodes: 2, gpusPerNode: 8 }, { nnodes: 3, gpusPerNode: 8 }, { nnodes: 4, gpusPerNode: 1 }, { nnodes: 1, gpusPerNode: 3 }];

  it.skipIf(!hasYaml)("every YAML runs in the reference on its cluster, read back from the file", () => {
    for (const [name, config, file] of configs) {
      for (const cluster of clusters) {
        const e = build(config, cluster, file);
        const doc = readYaml(strFromU8(e.files[VERL_CONFIG_FILE]));
        expect([name, cluster, referenceFailures(doc, e.train, cluster)]).toEqual([name, cluster, []]);
        const manifest = JSON.parse(strFromU8(e.files["export.json"])) as { cluster: unknown; pool: { nnodes: number; gpus_per_node: number }; adjusted: string[] };
        expect(manifest.cluster).toEqual({ nnodes: cluster.nnodes, gpus_per_node: cluster.gpusPerNode });
        expect(manifest.pool).toEqual({ nnodes: at(doc, "trainer.nnodes"), gpus_per_node: at(doc, "trainer.n_gpus_per_node") });
        // What the export chose is said, in the README too.
        const readme = strFromU8(e.files["README.md"]);
        for (const line of manifest.adjusted) expect(readme).toContain(line);
      }
    }
  });

  it("uses the whole cluster when the batch splits over it, and says what it left idle and why when not", () => {
    // The case: classroom (4 tasks per step) on one node of 8 GPUs: 4 per model, every GPU used.
    const one = build(presetConfig("classroom"), { nnodes: 1, gpusPerNode: 8 });
    expect([one.plan.poolNodes, one.plan.poolGpusPerNode, one.plan.world]).toEqual([1, 4, 4]);
    expect(one.plan.adjusted.join("\n")).not.toMatch(/uses \d+ of/);
    // 3 nodes x 8: 12 GPUs per model would split 4 tasks unevenly; the largest pool that fits is 4 GPUs.
    const three = build(presetConfig("classroom"), { nnodes: 3, gpusPerNode: 8 });
    expect(three.plan.world).toBe(4);
    const said = three.plan.adjusted.join("\n");
    expect(said).toContain("uses 8 of the cluster's 24 GPUs");
    expect(said).toContain("tasks_per_step = 4 does not split over 12 GPUs");
    expect(said).toContain("tasks_per_step 12 would use all 24");
    // 4 single-GPU nodes: one node per pool share, two nodes per model.
    const singles = build(presetConfig("classroom"), { nnodes: 4, gpusPerNode: 1 });
    expect([singles.plan.poolNodes, singles.plan.poolGpusPerNode]).toEqual([2, 1]);
  });

  it("counts epochs with verl's drop_last: enough to reach the steps, the skipped rows said", () => {
    // 47 arena-v1 train tasks, 6 per step: 7 steps per epoch (5 rows skipped each epoch); 36 steps need 6 epochs, not ceil(216 / 47) = 5.
    const e = build(presetConfig("classroom", { tasks_per_step: 6, mini_batches: 1, train_tasks: 0 }), { nnodes: 1, gpusPerNode: 2 }, v1);
    expect(e.train).toBe(47);
    expect([e.plan.stepsPerEpoch, e.plan.epochs]).toEqual([7, 6]);
    expect(e.plan.adjusted.join("\n")).toContain("each epoch runs 7 steps and skips 5 of its 47 shuffled train rows");
  });

  it("refuses what the reference would crash on or silently change, with the reason and the nearest valid choice", () => {
    const cluster = { nnodes: 1, gpusPerNode: 8 };
    const refuse = (over: Partial<Config>, re: RegExp, file = v2) => expect(() => build(presetConfig("classroom", over), cluster, file)).toThrow(re);
    refuse({ mistake_book_top_k: 9 }, /^mistake_book_top_k: .*at most 8 tests per task.*nearest valid: 8$/);
    expect(() => build(presetConfig("classroom", { mistake_book: false, mistake_book_top_k: 9 }), cluster)).not.toThrow(); // inert without the book
    refuse({ drop_zero_advantage: true }, /^drop_zero_advantage: .*never calls it.*nearest valid: false$/);
    refuse({ task_order: "random" }, /^task_order: .*nearest valid: epochs$/);
    refuse({ mini_batches: 3 }, /^mini_batches: .*4 tasks per step do not split into 3 equal mini-batches; nearest valid: mini_batches 2 or 4$/);
    refuse({ train_tasks: 3 }, /^tasks_per_step: 4 tasks per step but train.parquet has 3 rows; .*drop_last.*nearest valid: tasks_per_step 3, or train_tasks >= 4$/);
    expect(() => build(presetConfig("classroom"), { nnodes: 1, gpusPerNode: 1 })).toThrow(/needs 2 GPUs at least.*nearest valid: --gpus-per-node 2/);
    expect(() => build(presetConfig("classroom"), { nnodes: 0, gpusPerNode: 8 })).toThrow(/nnodes must be a positive integer/);
  });

  it("the command line prints what it adjusted", () => {
    const dir = mkdtempSync(join(tmpdir(), "verl-cluster-"));
    try {
      const out = join(dir, "x");
      const r = spawnSync("npx", ["tsx", "scripts/export.ts", "verl", "--tasks", "arena-v1", "--preset", "classroom", "--out", out, "--nnodes", "3", "--gpus-per-node", "8"], { encoding: "utf8" });
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("each model gets 1 node(s) x 4 GPUs");
      expect(r.stdout).toContain("uses 8 of the cluster's 24 GPUs");
      const bad = spawnSync("npx", ["tsx", "scripts/export.ts", "verl", "--tasks", "arena-v1", "--out", join(dir, "y"), "--mistake_book_top_k", "12"], { encoding: "utf8" });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain("nearest valid: 8");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
