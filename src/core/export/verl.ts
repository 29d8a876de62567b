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
import { checkExportable, toYaml, verlConfigObject } from "./verl-config.ts";
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
  nnodes?: number;
  gpusPerNode?: number;
  experiment?: string;
}

export interface VerlExport {
  /** File name -> bytes. */
  files: Record<string, Uint8Array>;
  train: number;
  val: number;
}

export function buildVerlExport(o: VerlExportOptions): VerlExport {
  const c = o.config;
  checkExportable(c);
  const nnodes = o.nnodes ?? 1;
  const gpusPerNode = o.gpusPerNode ?? 4;
  for (const [name, v] of [["nnodes", nnodes], ["gpus-per-node", gpusPerNode]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new ExportError(`${name} must be a positive integer, got ${v}`);
  }
  const experiment = o.experiment ?? `${o.file.name}-${o.preset}-seed${c.seed}`;
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(experiment)) throw new ExportError(`experiment name must be 1-100 letters, digits, '.', '_' or '-', got ${JSON.stringify(experiment)}`);
  const rows = verlRows(o.file, { tests: c.tests_per_suite, curriculum: c.curriculum, train_tasks: c.train_tasks, plus: o.plus });
  const codeModel = o.codeModel ?? DEFAULT_LLM;
  const testModel = o.testModel ?? DEFAULT_LLM;
  const yaml = toYaml(verlConfigObject(c, { trainTasks: rows.train.length }, { codeModel, testModel, nnodes, gpusPerNode, experiment }));
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
    config: c,
  };
  const files: Record<string, Uint8Array> = {
    "train.parquet": writeVerlParquet(rows.train),
    "val.parquet": writeVerlParquet(rows.val),
    [VERL_CONFIG_FILE]: strToU8(`# Code-A1 Arena export: ${o.file.name}, preset ${o.preset}. Arena field -> key: docs/SCALING.md.\n${yaml}`),
    "arena_reward.py": strToU8(o.rewardModule),
    "README.md": strToU8(verlReadme({ experiment, preset: o.preset, taskSet: o.file.name, train: rows.train.length, val: rows.val.length, config: c, nnodes, gpusPerNode, plus: !!o.plus })),
    "export.json": strToU8(canonicalJson(manifest) + "\n"),
  };
  return { files, train: rows.train.length, val: rows.val.length };
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

function verlReadme(o: { experiment: string; preset: string; taskSet: string; train: number; val: number; config: Config; nnodes: number; gpusPerNode: number; plus: boolean }): string {
  const c = o.config;
  const gpus = 2 * o.nnodes * o.gpusPerNode;
  return `# ${o.experiment}: Code-A1 Arena on verl and Ray

Exported by Code-A1 Arena (\`npm run export -- verl\`, or Settings > Export to verl) from task set
\`${o.taskSet}\`, preset \`${o.preset}\`: ${o.train} train tasks, ${o.val} validation tasks
(validation tests: ${o.plus ? "golden and plus" : "golden only"}). It runs on the reference implementation of Code-A1
(https://github.com/ZJU-REAL/Code-A1, \`Code-A1/code/rl\`: verl, Ray, vLLM, SandboxFusion).

| file | what |
|---|---|
| \`train.parquet\`, \`val.parquet\` | one row per task: \`data_source\`, \`prompt\` (Code role chat), \`test_prompt\` (Test role chat, \`{generated_code}\` stands for the program), \`clean_description\`, \`description\`, \`problem\`, \`GT_code\`, \`GT_test\`, \`test\` (\`def check(candidate)\`), \`extra_info\` (\`question_id\`, \`function_name\`, ...) |
| \`code_a1_arena.yaml\` | the run's settings on the reference's keys (alpha ${c.alpha}, ${c.num_generations} codes x ${c.suites_per_code} suites, ${c.steps} steps, lr ${c.learning_rate}); the arena's docs/SCALING.md lists every mapping |
| \`arena_reward.py\` | the arena's grading and rewards (canonical equality, R_val, R_adv, R_T, R_C, the Mistake Book) for the reference's reward manager |
| \`export.json\` | the arena config, preset and task set this came from |

## 1. The reference and its environment

\`\`\`sh
git clone https://github.com/ZJU-REAL/Code-A1 && cd Code-A1/Code-A1
export PREFIX=$(pwd)
bash rl_env.sh                      # verl, vLLM, Ray, sandbox_fusion client (the reference's setup)
cp -r /path/to/this/folder "$PREFIX/arena"
export SANDBOX_FUSION_ENDPOINT=http://<sandbox-host>:8080   # a running SandboxFusion server (test_sandbox.sh checks it)
\`\`\`

## 2. The arena's rewards (for the same semantics as the browser run)

Without this step the reference scores with its own rules (Python \`==\`, N fixed at 8, a
non-printable-character penalty). With it, rewards and the Mistake Book follow the arena's:

\`\`\`sh
cp "$PREFIX/arena/arena_reward.py" "$PREFIX/code/rl/"
echo 'from arena_reward import compute_dual_model_reward  # Code-A1 Arena rules' >> "$PREFIX/code/rl/reward.py"
cat >> "$PREFIX/code/rl/trainer_a1.py" <<'EOF'
import functools
from arena_reward import ArenaMistakeBook
MistakeBook = functools.partial(ArenaMistakeBook, top_k=${c.mistake_book_top_k})  # Code-A1 Arena Mistake Book
EOF
\`\`\`

Both lines rebind a name the reference looks up when it runs (ACGRewardManager's
\`compute_score\`, ACGRayTrainer's \`MistakeBook\`). \`reward_model.reward_kwargs\` carries \`alpha\`,
\`tests_per_suite\` and \`mistake_book_top_k\` to it; the reference asks the Mistake Book for at most
8 tests per task, so a top-k above 8 is capped there.

## 3. A Ray cluster

The reference places the Code model and the Test model in two resource pools of
\`nnodes x n_gpus_per_node\` GPUs each: this config needs ${gpus} GPUs (${o.nnodes} node(s) x ${o.gpusPerNode} GPUs, twice).

\`\`\`sh
# on the head node
ray start --head --port=6379 --dashboard-host=0.0.0.0
# on every other node
ray start --address=<head-ip>:6379
ray status                          # all GPUs listed?
# on the head node: main_a1.py joins the running cluster (RAY_ADDRESS) and reads PREFIX
cd "$PREFIX" && RAY_ADDRESS=auto PREFIX="$PREFIX" python code/rl/main_a1.py arena/${VERL_CONFIG_FILE}
\`\`\`

Or as a Ray job from any machine that reaches the dashboard:

\`\`\`sh
ray job submit --address http://<head-ip>:8265 --working-dir "$PREFIX" \\
  --runtime-env-json '{"env_vars": {"PREFIX": ".", "SANDBOX_FUSION_ENDPOINT": "'"$SANDBOX_FUSION_ENDPOINT"'"}}' \\
  -- python code/rl/main_a1.py arena/${VERL_CONFIG_FILE}
\`\`\`

On one machine \`ray start --head\` is enough (or nothing: main_a1.py starts a local Ray).
Checkpoints land in \`checkpoints/{code,test}/${o.experiment}\`, rollouts in \`logs/\`.

## 4. Back into the arena

Every step the reference dumps its rollouts as JSONL (\`trainer.rollout_data_dir\`):
\`logs/code_rollout/${o.experiment}/<host>/<step>.jsonl\` (codes), \`logs/test_rollout/${o.experiment}/<host>_phase2/<step>.jsonl\`
(suites) and, with the Mistake Book, \`logs/code_rollout/${o.experiment}/<host>/mistake_book_step_<step>.json\`.
Turn them into a run the arena's Duel and Mistake Book views open (with step 2's module: the
per-line verdicts come from its \`arena_lines\`), in the arena's checkout, with \`logs/\` and this folder copied over:

\`\`\`sh
npm run import-verl -- "$PREFIX/logs" --export "$PREFIX/arena" --out runs/${o.experiment}.a1run   # then Runs > Import
\`\`\`
`;
}

export { ExportError };
