/**
 * `npm run export -- verl` and the app's Settings > Export to verl: one experiment of the arena as
 * the files the reference implementation (ZJU-REAL/Code-A1 on verl and Ray) runs from. Pure: the
 * same bytes in Node and in the browser (docs/SCALING.md).
 *
 *   train.parquet, val.parquet   the task data (verl-data.ts)
 *   code_a1_arena.yaml           the run's settings on the reference's keys (verl-config.ts)
 *   arena_reward.py              the arena's grading and rewards for the reference's reward manager
 *   README.md                    how to run it on a Ray cluster and bring the rollouts back
 *   export.json                  what was exported: config, preset, task set, row counts
 */
import { quickLookTasks } from "../duel/evaluate.ts";
import { strToU8, zipSync } from "fflate";
import type { TaskFile } from "../arena/task.ts";
import type { Config } from "../config/index.ts";
import { canonicalJson } from "../bundle.ts";
import { benchKey } from "../arena/bench-file.ts";
import { isHeldout, SPLITS } from "../arena/task.ts";
import { toYaml, verlConfigObject } from "./verl-config.ts";
import { DEFAULT_CLUSTER, planVerlRun, type VerlPlan } from "./verl-cluster.ts";
import { ExportError, verlRows, writeVerlParquet } from "./verl-data.ts";

export const VERL_CONFIG_FILE = "code_a1_arena.yaml";
export const DEFAULT_LLM = "Qwen/Qwen2.5-Coder-1.5B-Instruct";

export interface VerlExportOptions {
  file: TaskFile;
  config: Config;
  /** The preset the config came from (recorded only). */
  preset: string;
  /** Source of arena_reward.py (Node reads the file, the browser imports it `?raw`). */
  rewardModule: string;
  /** Plus tests per task id for val.parquet's `test` (golden tests only without). */
  plus?: ReadonlyMap<string, readonly string[]>;
  codeModel?: string;
  testModel?: string;
  /** The Ray cluster: nodes, and GPUs on each node; the two models share it (default 1 x 8). */
  nnodes?: number;
  gpusPerNode?: number;
  experiment?: string;
}

export interface VerlExport {
  /** File name -> bytes. */
  files: Record<string, Uint8Array>;
  train: number;
  val: number;
  /** The run's shape; `plan.adjusted` says what the export chose beyond the flags. */
  plan: VerlPlan;
}

export function buildVerlExport(o: VerlExportOptions): VerlExport {
  const c = o.config;
  const cluster = { nnodes: o.nnodes ?? DEFAULT_CLUSTER.nnodes, gpusPerNode: o.gpusPerNode ?? DEFAULT_CLUSTER.gpusPerNode };
  const experiment = o.experiment ?? `${o.file.name}-${o.preset}-seed${c.seed}`;
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(experiment)) throw new ExportError(`experiment name must be 1-100 letters, digits, '.', '_' or '-', got ${JSON.stringify(experiment)}`);
  const rows = verlRows(o.file, { tests: c.tests_per_suite, curriculum: c.curriculum, train_tasks: c.train_tasks, plus: o.plus });
  const plan = planVerlRun(c, rows.train.length, cluster);
  const codeModel = o.codeModel ?? DEFAULT_LLM;
  const testModel = o.testModel ?? DEFAULT_LLM;
  const yaml = toYaml(verlConfigObject(c, { plan }, { codeModel, testModel, experiment }));
  const manifest = {
    format: "code-a1-arena verl export",
    version: 1,
    preset: o.preset,
    experiment,
    task_set: o.file.name,
    train_rows: rows.train.length,
    val_rows: rows.val.length,
    val_tests: o.plus ? "golden + plus" : "golden",
    code_model: codeModel,
    test_model: testModel,
    cluster: { nnodes: cluster.nnodes, gpus_per_node: cluster.gpusPerNode },
    pool: { nnodes: plan.poolNodes, gpus_per_node: plan.poolGpusPerNode },
    adjusted: plan.adjusted,
    config: c,
  };
  const files: Record<string, Uint8Array> = {
    "train.parquet": writeVerlParquet(rows.train),
    "val.parquet": writeVerlParquet(rows.val),
    [VERL_CONFIG_FILE]: strToU8(`# Code-A1 Arena export: ${o.file.name}, preset ${o.preset}. Arena field -> key: docs/SCALING.md.\n${yaml}`),
    "arena_reward.py": strToU8(o.rewardModule),
    "README.md": strToU8(verlReadme({ experiment, preset: o.preset, taskSet: o.file.name, train: rows.train.length, val: rows.val.length, config: c, plan, cluster, plus: !!o.plus })),
    "export.json": strToU8(canonicalJson(manifest) + "\n"),
  };
  return { files, train: rows.train.length, val: rows.val.length, plan };
}

/**
 * The plus tests of an evaluation bench file when it was built for tasks of this set: `npm run
 * eval`'s cache (its key: the hash of the train then held-out tasks) or the app's quick-look bench
 * (`public/bench/<set>.json`, quickLookTasks: plus tests for those tasks only); else null.
 */
export async function benchPlus(file: TaskFile, bench: unknown): Promise<Map<string, string[]> | null> {
  const b = bench as { key?: unknown; plus?: unknown };
  if (typeof b !== "object" || b === null || !Array.isArray(b.plus)) return null;
  const ordered = [...file.tasks.filter((t) => t.split === "train"), ...SPLITS.filter(isHeldout).flatMap((split) => file.tasks.filter((t) => t.split === split))];
  const keys = [await benchKey(ordered), await benchKey(quickLookTasks(file))];
  if (!keys.includes(b.key as string)) return null;
  return new Map((b.plus as [string, { lines: string[] }][]).map(([id, p]) => [id, p.lines]));
}

/** The export as one zip with every file under `folder/` (the app's download). */
export function verlExportZip(e: VerlExport, folder: string): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(e.files).map(([name, bytes]) => [`${folder}/${name}`, bytes])), { mtime: new Date(Date.UTC(2026, 0, 1)) });
}

function verlReadme(o: { experiment: string; preset: string; taskSet: string; train: number; val: number; config: Config; plan: VerlPlan; cluster: { nnodes: number; gpusPerNode: number }; plus: boolean }): string {
  const c = o.config;
  const { plan } = o;
  const yaml = `arena/${VERL_CONFIG_FILE}`;
  return `# ${o.experiment}: Code-A1 Arena on verl and Ray

Exported by Code-A1 Arena (\`npm run export -- verl\`, or Settings > Export to verl) from task set
\`${o.taskSet}\`, preset \`${o.preset}\`: ${o.train} train tasks, ${o.val} validation tasks
(validation tests: ${o.plus ? "golden and plus" : "golden only"}). It runs on the reference implementation of Code-A1
(https://github.com/ZJU-REAL/Code-A1, \`Code-A1/code/rl\`: verl, Ray, vLLM, SandboxFusion).

| file | what |
|---|---|
| \`train.parquet\`, \`val.parquet\` | one row per task: \`data_source\`, \`prompt\` (Code role chat), \`test_prompt\` (Test role chat, \`{generated_code}\` stands for the program), \`clean_description\`, \`description\`, \`problem\`, \`GT_code\`, \`GT_test\`, \`test\` (\`def check(candidate)\`), \`extra_info\` (\`question_id\`, \`function_name\`, ...) |
| \`${VERL_CONFIG_FILE}\` | the run's settings on the reference's keys (alpha ${c.alpha}, ${c.num_generations} codes x ${c.suites_per_code} suites, ${c.tasks_per_step} tasks per step, ${c.steps} steps, lr ${c.learning_rate}); the arena's docs/SCALING.md lists every mapping |
| \`arena_reward.py\` | the arena's grading and rewards (canonical equality, R_val, R_adv, R_T, R_C, the Mistake Book) for the reference's reward manager |
| \`export.json\` | the arena config, preset, task set and cluster this came from |

## The run's shape

For a cluster of ${o.cluster.nnodes} node(s) x ${o.cluster.gpusPerNode} GPUs (\`--nnodes\`, \`--gpus-per-node\`), checked so that every
batch splits evenly over each model's GPUs, as verl requires:

${plan.adjusted.map((a) => `- ${a}`).join("\n")}
- validation at step 0, every ${c.eval_every > 0 ? c.eval_every : c.steps} steps and at the last: 32 samples per task at temperature 0.7, top_p 0.95 (the reference's \`val_kwargs\`)

## 1. The reference and its environment

On the head node (and on every other node unless they share this filesystem: Ray starts its
workers with the driver's Python at the same path):

\`\`\`sh
git clone https://github.com/ZJU-REAL/Code-A1 && cd Code-A1/Code-A1
export PREFIX=$(pwd)                     # the reference's root, as its run/*.sh set it
bash rl_env.sh                           # builds $PREFIX/.venv-rl: Python 3.10, verl, vLLM, Ray 2.47.1, sandbox_fusion
source "$PREFIX/.venv-rl/bin/activate"   # rl_env.sh activates it inside its own shell only: every command below needs it
cp -r /path/to/this/folder "$PREFIX/arena"
export SANDBOX_FUSION_ENDPOINT=http://<sandbox-host>:8080   # a running SandboxFusion server (test_sandbox.sh checks it)
export ARENA_OUT=/shared/runs/${o.experiment}                  # ABSOLUTE, outlives the job: logs, rollouts, Mistake Book, checkpoints
mkdir -p "$ARENA_OUT"
\`\`\`

The YAML reads \`$ARENA_OUT\` (its \`out\` key); without it everything is written under
\`$PREFIX\`, the run's working directory.

## 2. The arena's rules in the reference

\`\`\`sh
cp "$PREFIX/arena/arena_reward.py" "$PREFIX/code/rl/"
cat >> "$PREFIX/code/rl/reward.py" <<'EOF'
# Code-A1 Arena: the arena's rewards; Mistake Book updates that keep each test's failing program
from arena_reward import compute_dual_model_reward, reference_update_mistake_book as update_mistake_book
EOF
cat >> "$PREFIX/code/rl/trainer_a1.py" <<'EOF'
# Code-A1 Arena: the arena's Mistake Book, top-k read from reward_model.reward_kwargs.mistake_book_top_k
import arena_reward; arena_reward.use_arena_mistake_book(ACGRayTrainer)
EOF
\`\`\`

The appended lines rebind names the reference looks up when it runs: ACGRewardManager's
\`compute_score\` and the \`update_mistake_book\` it calls every step (reward.py), and the \`MistakeBook\`
that \`ACGRayTrainer.fit\` builds (trainer_a1.py). \`reward_model.reward_kwargs\` carries \`alpha\` (${c.alpha}),
\`tests_per_suite\` (${c.tests_per_suite}) and \`mistake_book_top_k\` (${c.mistake_book_top_k}; the reference asks for at most
8, the export refuses more) to them: edit the YAML and the run follows. Without this step the reference
scores by its own rules (Python \`==\`, N fixed at 8, a non-printable-character penalty) and
\`import-verl\` cannot read the run back.

## 3. A Ray cluster

With the environment active on every node:

\`\`\`sh
# on the head node
ray start --head --port=6379 --dashboard-host=0.0.0.0
# on every other node
ray start --address=<head-ip>:6379
ray status                          # ${o.cluster.nnodes * o.cluster.gpusPerNode} GPUs listed?
\`\`\`

Then on the head node (main_a1.py joins the running cluster with \`RAY_ADDRESS=auto\`; on one
machine without \`ray start\` it starts a local Ray):

\`\`\`sh
cd "$PREFIX" && RAY_ADDRESS=auto python code/rl/main_a1.py ${yaml}
\`\`\`

Or as a Ray job, from any machine that reaches the dashboard. Ray uploads the working directory
and refuses a large one, so give it a folder with only the reference's code and this folder (a
few hundred KB; not \`$PREFIX\`, which holds the environment and the reference's data):

\`\`\`sh
JOB=$(mktemp -d) && mkdir -p "$JOB/code/rl" && cp "$PREFIX"/code/rl/*.py "$JOB/code/rl/" && cp -r "$PREFIX/arena" "$JOB/arena"
ray job submit --address http://<head-ip>:8265 --working-dir "$JOB" \\
  --runtime-env-json '{"env_vars": {"ARENA_OUT": "'"$ARENA_OUT"'", "SANDBOX_FUSION_ENDPOINT": "'"$SANDBOX_FUSION_ENDPOINT"'"}}' \\
  -- PREFIX='$PWD' python code/rl/main_a1.py ${yaml}
\`\`\`

The job runs the \`python\` of the head node's \`ray start\` (start Ray with the environment active)
in the uploaded copy (\`PREFIX='$PWD'\`: the data are read from there), and writes to \`$ARENA_OUT\`
on the node that runs the trainer. Keep \`excludes\` out of \`--runtime-env-json\`: main_a1.py passes
its own to \`ray.init\`, and Ray fails a job whose driver and job both set a key. With a shared
filesystem, skip the upload:

\`\`\`sh
ray job submit --address http://<head-ip>:8265 \\
  --runtime-env-json '{"env_vars": {"PREFIX": "'"$PREFIX"'", "ARENA_OUT": "'"$ARENA_OUT"'", "SANDBOX_FUSION_ENDPOINT": "'"$SANDBOX_FUSION_ENDPOINT"'"}}' \\
  -- python "$PREFIX/code/rl/main_a1.py" "$PREFIX/${yaml}"
\`\`\`

Checkpoints land in \`$ARENA_OUT/checkpoints/{code,test}/${o.experiment}\`, rollouts in \`$ARENA_OUT/logs/\`.

## 4. Back into the arena

Every step the reference dumps its rollouts as JSONL (\`trainer.rollout_data_dir\`):
\`$ARENA_OUT/logs/code_rollout/${o.experiment}/<host>/<step>.jsonl\` (codes), \`$ARENA_OUT/logs/test_rollout/${o.experiment}/<host>_phase2/<step>.jsonl\`
(suites) and, with the Mistake Book, \`$ARENA_OUT/logs/code_rollout/${o.experiment}/<host>/mistake_book_step_<step>.json\`.
Turn them into a run the arena's Duel and Mistake Book views open (with step 2's module: the
per-line verdicts come from its \`arena_lines\`), in the arena's checkout, with \`$ARENA_OUT/logs\` and this folder copied over:

\`\`\`sh
npm run import-verl -- "$ARENA_OUT/logs" --export "$PREFIX/arena" --out runs/${o.experiment}.a1run   # then Runs > Import
\`\`\`
`;
}

export { ExportError };
