/**
 * The task data of a verl export as the reference implementation reads it (ZJU-REAL/Code-A1,
 * code/rl: trainer_a1.py, reward.py, main_a1.py; docs/SCALING.md): one row per task, the column
 * layout of its `validation_data_mix.parquet` plus the training columns its reward manager reads.
 *
 *   data_source        train rows "kodcode_light" (the value that sends a batch down the reference's
 *                      Code-A1 branch); validation rows "arena/<task set>/<split>"
 *   prompt             the Code role's chat messages (system, user), which verl's RLHFDataset renders
 *   test_prompt        the Test role's chat messages; `{generated_code}` stands for the program
 *   clean_description  the question the reference's trainer puts in its own Test-role prompt
 *   description, problem, GT_code (reference solution), GT_test (golden assert lines),
 *   test               `def check(candidate):` with the golden (and plus) tests, for validation
 *   extra_info         {question_id, function_name, function_declaration, imports, index, split, title}
 *
 * Written with hyparquet-writer (never by hand); tests read the files back with parquet-wasm.
 */
import { runTrainTasks } from "../duel/task-order.ts";
import type { SchemaElement } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import type { Task, TaskFile } from "../arena/task.ts";

/** The reference's reward manager runs the Code-A1 branch only for batches of this data source. */
export const TRAIN_DATA_SOURCE = "kodcode_light";

/** One chat message. */
export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

/** One Parquet row (both files share the schema). */
export interface VerlRow {
  data_source: string;
  prompt: ChatMessage[];
  test_prompt: ChatMessage[];
  clean_description: string;
  description: string;
  problem: string;
  GT_code: string;
  GT_test: string[];
  test: string;
  extra_info: { question_id: string; function_name: string; function_declaration: string; imports: string; index: number; split: string; title: string };
}

/** The placeholder the Test-role prompt holds for the program under test. */
export const CODE_PLACEHOLDER = "{generated_code}";

export class ExportError extends Error {
  override name = "ExportError";
}

/** `def f(xs: list[int]) -> int:` from the task's signature. */
export function functionDeclaration(t: Task): string {
  const params = t.params.map((p) => (p.type === "other" ? p.name : `${p.name}: ${p.type}`)).join(", ");
  return `def ${t.entry_point}(${params})${t.returns === "other" ? "" : ` -> ${t.returns}`}:`;
}

/** The question in words: the task's sentence and its signature. */
export function cleanDescription(t: Task): string {
  return `${t.prompt}\n\nSignature: ${functionDeclaration(t)}`;
}

/** The Code role's prompt. */
export function codeMessages(t: Task): ChatMessage[] {
  return [
    { role: "system", content: "You are a careful Python programmer. You write one correct, self-contained function." },
    {
      role: "user",
      content:
        `Write the Python function described below. Reply with the complete function in a single \`\`\`python ... \`\`\` block and nothing else.\n\n` +
        `Task: ${t.prompt}\n\nSignature:\n${functionDeclaration(t)}`,
    },
  ];
}

/** The Test role's prompt for a program ({generated_code} in place of it); `tests` = N. */
export function testMessages(t: Task, tests: number): ChatMessage[] {
  return [
    { role: "system", content: "You write unit tests that expose bugs in other people's code." },
    {
      role: "user",
      content:
        `Below are a programming task and a candidate solution that may be wrong. Write ${tests} test cases, one per line, each of the form ` +
        `\`assert ${t.entry_point}(ARGUMENTS) == EXPECTED\`, where EXPECTED is what a correct solution returns. Choose inputs that make this ` +
        `candidate fail: edge cases, boundaries, and the cases its logic misses. Only the first ${tests} lines count, so put the strongest first. ` +
        `Reply with the assert lines in a single \`\`\`python ... \`\`\` block and nothing else.\n\n` +
        `Task: ${t.prompt}\n\nSignature:\n${functionDeclaration(t)}\n\nCandidate solution:\n\`\`\`python\n${CODE_PLACEHOLDER}\n\`\`\``,
    },
  ];
}

/** `def check(candidate):` with each assert line calling `candidate` instead of the entry point. */
export function checkFunction(t: Task, lines: readonly string[]): string {
  const call = new RegExp(`^assert\\s+${t.entry_point}\\(`);
  const body = lines.map((line, i) => {
    if (!call.test(line)) throw new ExportError(`task ${t.id}: test line ${i + 1} does not start with \`assert ${t.entry_point}(\`: ${JSON.stringify(line)}`);
    return `    ${line.replace(call, "assert candidate(")}`;
  });
  if (body.length === 0) throw new ExportError(`task ${t.id}: no tests for its check function`);
  return `def check(candidate):\n${body.join("\n")}\n`;
}

/** One task as a row. `plus`: extra hidden tests for `test` (validation), when known. */
export function taskRow(t: Task, index: number, dataSource: string, tests: number, plus?: readonly string[]): VerlRow {
  return {
    data_source: dataSource,
    prompt: codeMessages(t),
    test_prompt: testMessages(t, tests),
    clean_description: cleanDescription(t),
    description: t.prompt,
    problem: `${functionDeclaration(t)}\n    ${JSON.stringify(t.prompt)}\n`,
    GT_code: t.reference,
    GT_test: [...t.golden_tests],
    test: checkFunction(t, [...t.golden_tests, ...(plus ?? [])]),
    extra_info: { question_id: t.id, function_name: t.entry_point, function_declaration: functionDeclaration(t), imports: "", index, split: t.split, title: t.title },
  };
}

/**
 * Train rows (split train, data source "kodcode_light") and validation rows (every held-out split).
 * `curriculum`: train rows shortest reference first (the export then turns verl's shuffling off).
 */
export function verlRows(file: TaskFile, o: { tests: number; curriculum: boolean; train_tasks: number; plus?: ReadonlyMap<string, readonly string[]> }): { train: VerlRow[]; val: VerlRow[] } {
  // The run's own train tasks (config train_tasks), as the arena trains on them.
  const train = runTrainTasks(file, o);
  const val = file.tasks.filter((t) => t.split !== "train");
  if (train.length === 0) throw new ExportError(`task set ${file.name} has no train tasks (train.parquet would be empty)`);
  if (val.length === 0) throw new ExportError(`task set ${file.name} has no held-out tasks (val.parquet would be empty; the reference validates every test_freq steps)`);
  const ordered = o.curriculum ? train.slice().sort((a, b) => a.reference.length - b.reference.length || (a.id < b.id ? -1 : 1)) : train;
  return {
    train: ordered.map((t, i) => taskRow(t, i, TRAIN_DATA_SOURCE, o.tests)),
    val: val.map((t, i) => taskRow(t, i, `arena/${file.name}/${t.split}`, o.tests, o.plus?.get(t.id))),
  };
}

// Logical types beside the legacy converted types, as pyarrow writes them: readers that go by the
// logical type (pyarrow, DuckDB, Spark) and old ones that go by the converted type agree.
const str = (name: string): SchemaElement => ({ name, type: "BYTE_ARRAY", converted_type: "UTF8", logical_type: { type: "STRING" }, repetition_type: "OPTIONAL" });
const messages = (name: string): SchemaElement[] => [
  { name, repetition_type: "OPTIONAL", converted_type: "LIST", logical_type: { type: "LIST" }, num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  { name: "element", repetition_type: "OPTIONAL", num_children: 2 },
  str("content"),
  str("role"),
];
const EXTRA_INFO_STRINGS = ["function_declaration", "function_name", "imports", "question_id", "split", "title"] as const;

/** The Parquet schema of both files (nullable columns, as pandas writes the reference's files). */
export const VERL_SCHEMA: SchemaElement[] = [
  { name: "schema", repetition_type: "REQUIRED", num_children: 10 },
  str("data_source"),
  ...messages("prompt"),
  ...messages("test_prompt"),
  str("clean_description"),
  str("description"),
  str("problem"),
  str("GT_code"),
  { name: "GT_test", repetition_type: "OPTIONAL", converted_type: "LIST", logical_type: { type: "LIST" }, num_children: 1 },
  { name: "list", repetition_type: "REPEATED", num_children: 1 },
  str("element"),
  str("test"),
  { name: "extra_info", repetition_type: "OPTIONAL", num_children: EXTRA_INFO_STRINGS.length + 1 },
  ...EXTRA_INFO_STRINGS.slice(0, 3).map(str),
  // A bare INT64 is int64 to every reader. No INTEGER logical type: hyparquet-writer encodes its
  // bitWidth so that DuckDB's Thrift reader rejects the whole footer (the DuckDB test caught it).
  { name: "index", type: "INT64", repetition_type: "OPTIONAL" },
  ...EXTRA_INFO_STRINGS.slice(3).map(str),
];

/** The column names, in schema order. */
export const VERL_COLUMNS = ["data_source", "prompt", "test_prompt", "clean_description", "description", "problem", "GT_code", "GT_test", "test", "extra_info"] as const;

/** pandas' dtype name of each column, as pyarrow records it ("unicode" strings, lists of them, objects). */
const PANDAS_TYPES: Record<(typeof VERL_COLUMNS)[number], string> = {
  data_source: "unicode", prompt: "list[object]", test_prompt: "list[object]", clean_description: "unicode", description: "unicode",
  problem: "unicode", GT_code: "unicode", GT_test: "list[unicode]", test: "unicode", extra_info: "object",
};

/**
 * The `pandas` key-value metadata pyarrow writes for a DataFrame with a default RangeIndex
 * (pyarrow.pandas_compat.construct_metadata): with it, `pd.read_parquet` rebuilds the frame the
 * reference's own files come from (columns in order, a RangeIndex, no "__index_level_0__").
 */
export function pandasMetadata(rows: number): string {
  return JSON.stringify({
    index_columns: [{ kind: "range", name: null, start: 0, stop: rows, step: 1 }],
    column_indexes: [{ name: null, field_name: null, pandas_type: "unicode", numpy_type: "object", metadata: { encoding: "UTF-8" } }],
    columns: VERL_COLUMNS.map((name) => ({ name, field_name: name, pandas_type: PANDAS_TYPES[name], numpy_type: "object", metadata: null })),
    creator: { library: "code-a1-arena", version: "1" },
    pandas_version: "2.2.3",
  });
}

/** Rows -> Parquet bytes (hyparquet-writer, snappy), with pandas' metadata. */
export function writeVerlParquet(rows: readonly VerlRow[]): Uint8Array {
  const columnData = VERL_COLUMNS.map((name) => ({
    name,
    data: rows.map((r) => {
      if (name !== "extra_info") return r[name];
      const e = r.extra_info;
      // Struct fields in schema order; the INT64 field as a bigint.
      return { function_declaration: e.function_declaration, function_name: e.function_name, imports: e.imports, index: BigInt(e.index), question_id: e.question_id, split: e.split, title: e.title };
    }),
  }));
  return new Uint8Array(parquetWriteBuffer({ columnData, schema: VERL_SCHEMA, createdBy: "code-a1-arena verl export", kvMetadata: [{ key: "pandas", value: pandasMetadata(rows.length) }] }));
}
