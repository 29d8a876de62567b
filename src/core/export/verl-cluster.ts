/**
 * Will the reference run this config on this cluster, and as the arena means it? The batch
 * arithmetic of ZJU-REAL/Code-A1 (main_a1.py, trainer_a1.py, reward.py) and its vendored verl
 * (protocol.py, fsdp_workers.py, ray_trainer.py), written out so the export refuses, with the reason
 * and the nearest valid choice, what would crash on the first step or silently run another
 * experiment, and places the two models on the cluster it is given.
 *
 * Resources (main_a1.py TaskRunner): the Code model (A) and the Test model (B) each get a pool of
 * `trainer.nnodes x n_gpus_per_node` GPUs (B's count from `other.trainer.n_gpus_per_node`); each
 * node's share is one Ray placement group packed on one node, so two pools of g GPUs fit on a node
 * of 2g GPUs. Each pool's workers split every batch evenly (`DataProto.chunk` asserts it) with:
 *
 *   T  tasks_per_step (data.train_batch_size)       W   GPUs per pool (nnodes x n_gpus_per_node)
 *   nA num_generations (rollout.n, model A)          nB  suites_per_code (rollout.n, model B)
 *   u  other.update_n (TopVar's codes per task)      M   ppo_mini_batch_size = T / mini_batches
 *
 *   ray_trainer._validate_config        T nA        % W == 0
 *   A generate_sequences                T           % W == 0   (prompts, before rollout.n)
 *   B generate_sequences                T nA        % W == 0   (one Test prompt per code)
 *   B update after TopVar               T u nB      % W == 0
 *   fsdp_workers mini-batch per GPU     M nA / W, M nB / W: integers (verl floors them silently),
 *                                       each a multiple of ppo_micro_batch_size_per_gpu
 *   train dataloader (drop_last=True)   floor(train rows / T) >= 1 step per epoch
 */
import type { Config } from "../config/index.ts";
import { ExportError } from "./verl-data.ts";

/** reward.py `get_attack_testcases_from_mistake_book`: the reference asks for at most 8 tests per task. */
export const REFERENCE_MISTAKE_BOOK_CAP = 8;
/** The exported `actor.ppo_micro_batch_size_per_gpu` (the reference's configs use 1). */
export const PPO_MICRO_BATCH_PER_GPU = 1;
/** Default cluster: one node of 8 GPUs, 4 per model, as the paper's 1.5B run. */
export const DEFAULT_CLUSTER: VerlCluster = { nnodes: 1, gpusPerNode: 8 };

/** The Ray cluster the run gets: nodes, and GPUs on each node (both models share them). */
export interface VerlCluster {
  nnodes: number;
  gpusPerNode: number;
}

/** What the YAML and README carry about the run's shape. */
export interface VerlPlan {
  /** Each model's pool: `trainer.nnodes` x `trainer.n_gpus_per_node` (B's the same). */
  poolNodes: number;
  poolGpusPerNode: number;
  /** GPUs per pool (W). */
  world: number;
  /** Steps one pass over train.parquet gives (drop_last). */
  stepsPerEpoch: number;
  /** trainer.total_epochs: enough epochs for `steps`. */
  epochs: number;
  /** ppo_mini_batch_size (prompts). */
  miniBatchPrompts: number;
  /** other.update_n. */
  updateN: number;
  /** What the export chose that the flags did not say, in words (printed and in the README). */
  adjusted: string[];
}

/** TopVar's codes per task whose suites train the Test model (all codes when TopVar is off). */
export function updateN(c: Readonly<Config>): number {
  return c.topvar ? Math.min(c.topvar_k, c.num_generations) : c.num_generations;
}

/** Why W GPUs per pool cannot run this config (empty: it can). */
export function poolProblems(c: Readonly<Config>, world: number): string[] {
  const T = c.tasks_per_step;
  const M = T / c.mini_batches;
  const u = updateN(c);
  const problems: string[] = [];
  const even = (what: string, n: number, where: string) => {
    if (n % world !== 0) problems.push(`${what} = ${n} does not split over ${world} GPUs (${where})`);
  };
  even("tasks_per_step", T, "model A's generate_sequences: DataProto.chunk");
  even("tasks_per_step x num_generations", T * c.num_generations, "ray_trainer._validate_config; model B's generate_sequences");
  even("tasks_per_step x update_n x suites_per_code", T * u * c.suites_per_code, "model B's update after TopVar: DataProto.chunk");
  for (const [model, n] of [["A", c.num_generations], ["B", c.suites_per_code]] as const) {
    const rows = M * n;
    if (rows % world !== 0) problems.push(`model ${model}'s mini-batch of ${rows} sequences does not split over ${world} GPUs (fsdp_workers floors ${rows} / ${world}, changing the mini-batch)`);
    else if ((rows / world) % PPO_MICRO_BATCH_PER_GPU !== 0) problems.push(`model ${model}'s ${rows / world} sequences per GPU are not a multiple of ppo_micro_batch_size_per_gpu ${PPO_MICRO_BATCH_PER_GPU}`);
  }
  return problems;
}

/** Divisors of n nearest to x, below and above (the nearest valid choices for a count that must divide n). */
function nearestDivisors(n: number, x: number): number[] {
  const divisors = Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);
  const below = divisors.filter((d) => d < x).at(-1);
  const above = divisors.find((d) => d > x);
  return [below, above].filter((d): d is number => d !== undefined);
}

/**
 * Settings the reference cannot carry: refused with the reason and the nearest valid choice.
 * `trainRows`: rows of train.parquet.
 */
export function checkRunnable(c: Readonly<Config>, trainRows: number): void {
  if (c.mode !== "code-a1") throw new ExportError(`mode: the reference implementation trains code-a1 only, got ${JSON.stringify(c.mode)}; nearest valid: code-a1`);
  if (!c.white_box) throw new ExportError("white_box: the reference's Test policy always reads the program; a black-box run cannot be exported; nearest valid: white_box true");
  if (c.anonymise_code) throw new ExportError("anonymise_code: the reference has no counterpart; set it to false to export");
  if (c.drop_zero_advantage) {
    throw new ExportError("drop_zero_advantage: the reference keeps every sequence in the update (trainer_a1.py defines _reconstruct_a_batch but never calls it), so the run would silently differ; nearest valid: false");
  }
  if (c.task_order !== "epochs") {
    throw new ExportError(`task_order: the reference walks epochs of train.parquet (verl's sampler), not independent random draws; got ${JSON.stringify(c.task_order)}, nearest valid: epochs`);
  }
  if (c.mistake_book && c.mistake_book_top_k > REFERENCE_MISTAKE_BOOK_CAP) {
    throw new ExportError(
      `mistake_book_top_k: the reference asks its Mistake Book for at most ${REFERENCE_MISTAKE_BOOK_CAP} tests per task (reward.py get_attack_testcases_from_mistake_book), so ${c.mistake_book_top_k} would silently be ${REFERENCE_MISTAKE_BOOK_CAP}; nearest valid: ${REFERENCE_MISTAKE_BOOK_CAP}`,
    );
  }
  if (c.tasks_per_step > trainRows) {
    throw new ExportError(
      `tasks_per_step: ${c.tasks_per_step} tasks per step but train.parquet has ${trainRows} rows; verl's train dataloader drops the last partial batch (drop_last=True), so no step would run ("Train dataloader is empty!"); nearest valid: tasks_per_step ${trainRows}, or train_tasks >= ${c.tasks_per_step}`,
    );
  }
  if (c.tasks_per_step % c.mini_batches !== 0) {
    const near = nearestDivisors(c.tasks_per_step, c.mini_batches);
    throw new ExportError(
      `mini_batches: verl's ppo_mini_batch_size counts whole tasks (tasks_per_step / mini_batches), and ${c.tasks_per_step} tasks per step do not split into ${c.mini_batches} equal mini-batches; nearest valid: mini_batches ${near.join(" or ")}`,
    );
  }
}

/** Pool shapes (nodes x GPUs per node, per model) that both pools can take on the cluster, largest first. */
function poolShapes(cluster: VerlCluster): { nodes: number; gpus: number }[] {
  const shapes: { nodes: number; gpus: number }[] = [];
  for (let gpus = 1; gpus <= cluster.gpusPerNode; gpus++) {
    const perNode = Math.floor(cluster.gpusPerNode / gpus); // placement groups of `gpus` a node holds
    for (let nodes = 1; nodes <= cluster.nnodes; nodes++) if (2 * nodes <= cluster.nnodes * perNode) shapes.push({ nodes, gpus });
  }
  // Most GPUs first; then fewer nodes per pool (less traffic between nodes).
  return shapes.sort((a, b) => b.nodes * b.gpus - a.nodes * a.gpus || a.nodes - b.nodes);
}

/** The nearest tasks_per_step above T that runs on `world` GPUs per pool, with mini_batches unchanged. */
function nearestTasksPerStep(c: Readonly<Config>, world: number, trainRows: number): number | null {
  for (let T = c.tasks_per_step + 1; T <= Math.min(1024, trainRows); T++) {
    if (T % c.mini_batches === 0 && poolProblems({ ...c, tasks_per_step: T }, world).length === 0) return T;
  }
  return null;
}

/**
 * Checks the config (checkRunnable), places both models on the cluster with the most GPUs the
 * batch sizes split over, and counts epochs with drop_last. A cluster too big for the batch is used
 * in part, and `adjusted` says so and which tasks_per_step would use it whole.
 */
export function planVerlRun(c: Readonly<Config>, trainRows: number, cluster: VerlCluster = DEFAULT_CLUSTER): VerlPlan {
  for (const [name, v] of [["nnodes", cluster.nnodes], ["gpus-per-node", cluster.gpusPerNode]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new ExportError(`${name} must be a positive integer, got ${v}`);
  }
  if (cluster.nnodes * cluster.gpusPerNode < 2) {
    throw new ExportError(`the reference needs 2 GPUs at least (one pool per model, main_a1.py), the cluster has ${cluster.nnodes * cluster.gpusPerNode}; nearest valid: --gpus-per-node 2`);
  }
  checkRunnable(c, trainRows);
  const shapes = poolShapes(cluster);
  const fit = shapes.find((s) => poolProblems(c, s.nodes * s.gpus).length === 0)!; // 1 x 1 always fits
  const world = fit.nodes * fit.gpus;
  const total = cluster.nnodes * cluster.gpusPerNode;
  const adjusted = [`each model gets ${fit.nodes} node(s) x ${fit.gpus} GPUs (trainer.nnodes ${fit.nodes}, n_gpus_per_node ${fit.gpus}): the reference gives the Code and the Test model a pool each`];
  if (2 * world < total) {
    const full = shapes[0];
    const why = poolProblems(c, full.nodes * full.gpus)[0];
    const T = nearestTasksPerStep(c, full.nodes * full.gpus, trainRows);
    adjusted.push(
      `uses ${2 * world} of the cluster's ${total} GPUs: on ${full.nodes * full.gpus} per model, ${why}` +
        (T ? `; tasks_per_step ${T} would use all ${2 * full.nodes * full.gpus}` : ""),
    );
  }
  const stepsPerEpoch = Math.floor(trainRows / c.tasks_per_step);
  const epochs = Math.ceil(c.steps / stepsPerEpoch);
  const dropped = trainRows - stepsPerEpoch * c.tasks_per_step;
  if (dropped > 0) adjusted.push(`each epoch runs ${stepsPerEpoch} steps and skips ${dropped} of its ${trainRows} shuffled train rows (verl's drop_last); ${epochs} epoch(s) reach ${c.steps} steps`);
  return { poolNodes: fit.nodes, poolGpusPerNode: fit.gpus, world, stepsPerEpoch, epochs, miniBatchPrompts: c.tasks_per_step / c.mini_batches, updateN: updateN(c), adjusted };
}
