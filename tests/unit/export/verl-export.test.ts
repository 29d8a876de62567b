/**
 * `npm run export -- verl`: the Parquet files read back by three readers that share no code with the
 * writer's encoder (parquet-wasm: the Rust arrow-rs reader; DuckDB: its C++ reader, with the file's
 * logical types and pandas metadata; hyparquet: the reader of the same family, for the row objects), the YAML read back by PyYAML where python3 has it, every config
 * field accounted for in docs/SCALING.md, and bad input refused by name.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromIPC } from "apache-arrow";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { readParquet } from "parquet-wasm/node";
import { unzipSync, strFromU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import { unaccountedFields, verlMappingMarkdown, VERL_MAPPING } from "../../../src/core/export/verl-config.ts";
import { CODE_PLACEHOLDER, TRAIN_DATA_SOURCE, VERL_COLUMNS, functionDeclaration } from "../../../src/core/export/verl-data.ts";
import { buildVerlExport, verlExportZip, VERL_CONFIG_FILE } from "../../../src/core/export/verl.ts";
import { duckColumns, duckKeyValues, duckRows, duckSchema } from "./duckdb.ts";

const REWARD = readFileSync(new URL("../../../src/core/export/arena_reward.py", import.meta.url), "utf8");
const file = arenaV1();
const config = presetConfig("paper-mini", { alpha: 0.25, learning_rate: 3e-6, topvar_k: 2, curriculum: true });
const plus = new Map([[file.tasks.find((t) => t.split === "heldout")!.id, ["assert f([]) == 0"]]]);
const exported = buildVerlExport({ file, config, preset: "paper-mini", rewardModule: REWARD, plus, nnodes: 2, gpusPerNode: 8 });

function arrowRows(bytes: Uint8Array) {
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  const rows = table.toArray().map((r) => JSON.parse(JSON.stringify(r.toJSON(), (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))) as Record<string, unknown>);
  return { fields: table.schema.fields.map((f) => `${f.name}: ${String(f.type)}`), rows };
}

describe("verl export: Parquet", () => {
  const train = file.tasks.filter((t) => t.split === "train");
  const val = file.tasks.filter((t) => t.split !== "train");

  it("parquet-wasm (arrow-rs) reads the column layout the reference reads: chat messages, lists, a struct", () => {
    for (const name of ["train.parquet", "val.parquet"]) {
      const { fields } = arrowRows(exported.files[name]);
      expect(fields).toEqual([
        "data_source: Utf8",
        "prompt: List<Struct<{content:Utf8, role:Utf8}>>",
        "test_prompt: List<Struct<{content:Utf8, role:Utf8}>>",
        "clean_description: Utf8",
        "description: Utf8",
        "problem: Utf8",
        "GT_code: Utf8",
        "GT_test: List<Utf8>",
        "test: Utf8",
        "extra_info: Struct<{function_declaration:Utf8, function_name:Utf8, imports:Utf8, index:Int64, question_id:Utf8, split:Utf8, title:Utf8}>",
      ]);
    }
  });

  it("every train task once, shortest reference first (curriculum), with its prompts, reference and golden tests", () => {
    const { rows } = arrowRows(exported.files["train.parquet"]);
    expect(rows).toHaveLength(train.length);
    expect(exported.train).toBe(train.length);
    const lengths = rows.map((r) => (r.GT_code as string).length);
    expect(lengths).toEqual(lengths.slice().sort((a, b) => a - b));
    rows.forEach((r, i) => {
      const info = r.extra_info as Record<string, unknown>;
      const t = train.find((x) => x.id === info.question_id)!;
      expect(r.data_source).toBe(TRAIN_DATA_SOURCE);
      expect(info).toMatchObject({ function_name: t.entry_point, index: i, split: "train", function_declaration: functionDeclaration(t) });
      expect(r.GT_code).toBe(t.reference);
      expect(r.GT_test).toEqual(t.golden_tests);
      const [system, user] = r.prompt as { role: string; content: string }[];
      expect([system.role, user.role]).toEqual(["system", "user"]);
      expect(user.content).toContain(t.prompt);
      expect(user.content).toContain(functionDeclaration(t));
      expect(user.content).not.toContain(t.reference); // the Code role never sees the answer
      const testUser = (r.test_prompt as { role: string; content: string }[])[1].content;
      expect(testUser).toContain(CODE_PLACEHOLDER);
      expect(testUser).toContain(`Write ${config.tests_per_suite} test cases`);
      expect(r.clean_description).toContain(t.prompt);
    });
    expect(new Set(rows.map((r) => (r.extra_info as { question_id: string }).question_id)).size).toBe(train.length);
  });

  it("validation rows: held-out tasks, a check(candidate) of golden (+ plus) tests, the same rows through hyparquet", async () => {
    const { rows } = arrowRows(exported.files["val.parquet"]);
    expect(rows.map((r) => (r.extra_info as { question_id: string }).question_id)).toEqual(val.map((t) => t.id));
    rows.forEach((r, i) => {
      const t = val[i];
      expect(r.data_source).toBe(`arena/${file.name}/${t.split}`);
      const test = r.test as string;
      expect(test.startsWith("def check(candidate):\n")).toBe(true);
      const lines = test.trim().split("\n").slice(1).map((l) => l.trim());
      expect(lines).toEqual([...t.golden_tests, ...(plus.get(t.id) ?? [])].map((l) => l.replace(/^assert f\(/, "assert candidate(")));
    });
    const bytes = exported.files["val.parquet"];
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    expect(Number(parquetMetadata(buffer).num_rows)).toBe(val.length);
    const viaHyparquet = (await parquetReadObjects({ file: buffer })).map((r) => JSON.parse(JSON.stringify(r, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))) as unknown);
    expect(viaHyparquet).toEqual(rows);
  });

  it("DuckDB (C++, its own reader) reads the same rows and types, the logical types and pandas' metadata as pyarrow writes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verl-duck-"));
    try {
      for (const name of ["train.parquet", "val.parquet"]) {
        const path = join(dir, name);
        writeFileSync(path, exported.files[name]);
        expect(await duckColumns(path)).toEqual([
          "data_source: VARCHAR",
          "prompt: STRUCT(\"content\" VARCHAR, \"role\" VARCHAR)[]",
          "test_prompt: STRUCT(\"content\" VARCHAR, \"role\" VARCHAR)[]",
          "clean_description: VARCHAR",
          "description: VARCHAR",
          "problem: VARCHAR",
          "GT_code: VARCHAR",
          "GT_test: VARCHAR[]",
          "test: VARCHAR",
          "extra_info: STRUCT(function_declaration VARCHAR, function_name VARCHAR, imports VARCHAR, \"index\" BIGINT, question_id VARCHAR, split VARCHAR, title VARCHAR)",
        ]);
        expect(await duckRows(path)).toEqual(arrowRows(exported.files[name]).rows);
        // Logical types on every string, list and integer (not only the legacy converted types).
        const schema = await duckSchema(path);
        const leaves = schema.filter((e) => e.type !== null && e.name !== "schema");
        expect(leaves.length).toBeGreaterThan(10);
        for (const e of leaves) expect([e.name, e.logical_type]).toEqual([e.name, e.type === "INT64" ? null : "StringType()"]);
        for (const e of schema.filter((x) => x.converted_type === "LIST")) expect([e.name, e.logical_type]).toEqual([e.name, "ListType()"]);
        // pandas' metadata: every column in order, a RangeIndex over the rows (pd.read_parquet's frame).
        const pandas = JSON.parse((await duckKeyValues(path)).pandas) as { index_columns: unknown[]; columns: { name: string; field_name: string; pandas_type: string }[] };
        expect(pandas.columns.map((c) => c.name)).toEqual([...VERL_COLUMNS]);
        expect(pandas.columns.every((c) => c.field_name === c.name)).toBe(true);
        expect(pandas.index_columns).toEqual([{ kind: "range", name: null, start: 0, stop: name === "train.parquet" ? exported.train : exported.val, step: 1 }]);
        expect(Object.fromEntries(pandas.columns.map((c) => [c.name, c.pandas_type]))).toMatchObject({ prompt: "list[object]", GT_test: "list[unicode]", extra_info: "object", test: "unicode" });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(spawnSync("python3", ["--version"]).status !== 0)("the check functions run: the reference passes its own, in CPython", () => {
    const { rows } = arrowRows(exported.files["val.parquet"]);
    // Trusted code only: the task's own reference solution against its own tests.
    const script = rows.map((r) => `${r.GT_code as string}\n${r.test as string}\ncheck(${(r.extra_info as { function_name: string }).function_name})\n`).join("\n") + "print('ok', " + rows.length + ")\n";
    const res = spawnSync("python3", ["-c", script], { encoding: "utf8" });
    expect(res.stderr).toBe("");
    expect(res.stdout.trim()).toBe(`ok ${rows.length}`);
  });
});

describe("verl export: config, files, errors", () => {
  it.skipIf(spawnSync("python3", ["-c", "import yaml"]).status !== 0)("the YAML carries each mapped value at its reference key (read back by PyYAML)", () => {
    const yaml = strFromU8(exported.files[VERL_CONFIG_FILE]);
    const res = spawnSync("python3", ["-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))"], { input: yaml, encoding: "utf8" });
    expect(res.stderr).toBe("");
    const doc = JSON.parse(res.stdout) as Record<string, unknown>;
    const at = (key: string) => key.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], doc);
    for (const m of VERL_MAPPING) {
      const values = m.values(config, { plan: exported.plan });
      m.keys.forEach((k, i) => {
        const v = values[i];
        expect([k, at(k)]).toEqual([k, typeof v === "object" && v !== null && "value" in v ? v.value : v]);
      });
    }
    expect(at("reward_model.reward_kwargs.alpha")).toBe(0.25);
    expect(at("actor_rollout_ref.actor.optim.lr")).toBe(3e-6);
    expect(at("other.update_n")).toBe(2);
    expect(at("actor_rollout_ref.rollout.n")).toBe(8);
    expect(at("data.shuffle")).toBe(false);
    expect([at("trainer.nnodes"), at("trainer.n_gpus_per_node"), at("other.trainer.n_gpus_per_node")]).toEqual([1, 8, 8]); // 2 nodes x 8 GPUs: a node per model (no traffic between nodes inside a pool)
    expect(at("reward_model.reward_manager")).toBe("acg_llm");
  });

  it("every config field is mapped or listed as not mapped, and docs/SCALING.md holds the generated table", () => {
    expect(unaccountedFields()).toEqual([]);
    const doc = readFileSync(new URL("../../../docs/SCALING.md", import.meta.url), "utf8");
    expect(doc).toContain(verlMappingMarkdown());
  });

  it("writes the six files; the zip holds them under one folder; the CLI writes the same bytes", () => {
    expect(Object.keys(exported.files).sort()).toEqual(["README.md", "arena_reward.py", "code_a1_arena.yaml", "export.json", "train.parquet", "val.parquet"]);
    expect(strFromU8(exported.files["arena_reward.py"])).toBe(REWARD);
    const readme = strFromU8(exported.files["README.md"]);
    for (const cmd of ["ray start --head", "ray start --address=", "ray job submit", `main_a1.py arena/${VERL_CONFIG_FILE}`, "SANDBOX_FUSION_ENDPOINT", "npm run import-verl"]) expect(readme).toContain(cmd);
    expect(readme).toContain("16 GPUs listed");
    const zip = unzipSync(verlExportZip(exported, "arena"));
    expect(Object.keys(zip).sort()).toEqual(Object.keys(exported.files).map((n) => `arena/${n}`).sort());
    expect(Buffer.from(zip["arena/train.parquet"]).equals(Buffer.from(exported.files["train.parquet"]))).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), "verl-export-"));
    try {
      const out = join(dir, "x");
      const r = spawnSync("npx", ["tsx", "scripts/export.ts", "verl", "--preset", "paper-mini", "--out", out, "--alpha", "0.25", "--learning_rate", "3e-6", "--topvar_k", "2", "--curriculum", "true", "--nnodes", "2", "--gpus-per-node", "8", "--bench", "/nonexistent.json"], { encoding: "utf8" });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("--bench: file not found");
      const ok = spawnSync("npx", ["tsx", "scripts/export.ts", "verl", "--tasks", "arena-v1", "--preset", "paper-mini", "--out", out, "--alpha", "0.25", "--learning_rate", "3e-6", "--topvar_k", "2", "--curriculum", "true", "--nnodes", "2", "--gpus-per-node", "8"], { encoding: "utf8" });
      expect(ok.stderr).toBe("");
      expect(ok.stdout).toContain(`${exported.train} train rows, ${exported.val} validation rows`);
      expect(readdirSync(out).sort()).toEqual(Object.keys(exported.files).sort());
      for (const name of ["train.parquet", VERL_CONFIG_FILE]) expect(readFileSync(join(out, name)).equals(Buffer.from(exported.files[name]))).toBe(true);
      const again = spawnSync("npx", ["tsx", "scripts/export.ts", "verl", "--out", out], { encoding: "utf8" });
      expect(again.status).toBe(2);
      expect(again.stderr).toContain("exists and is not empty");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses what the reference cannot run, naming the field", () => {
    const base = { file, preset: "x", rewardModule: REWARD };
    expect(() => buildVerlExport({ ...base, config: presetConfig("classroom", { mode: "golden-tests" }) })).toThrow(/^mode: /);
    expect(() => buildVerlExport({ ...base, config: presetConfig("black-box") })).toThrow(/^white_box: /);
    expect(() => buildVerlExport({ ...base, config: presetConfig("classroom", { anonymise_code: true }) })).toThrow(/^anonymise_code: /);
    expect(() => buildVerlExport({ ...base, config, gpusPerNode: 0 })).toThrow(/gpus-per-node must be a positive integer/);
    expect(() => buildVerlExport({ ...base, config, experiment: "a b" })).toThrow(/experiment name/);
    expect(() => buildVerlExport({ ...base, config, file: { ...file, tasks: file.tasks.filter((t) => t.split === "train") } })).toThrow(/no held-out tasks/);
    const bad = { ...file, tasks: file.tasks.map((t, i) => (i === 0 ? { ...t, golden_tests: ["assert g(1) == 2"] } : t)) };
    expect(() => buildVerlExport({ ...base, config, file: bad })).toThrow(/test line 1 does not start with `assert f\(`/);
    expect(VERL_COLUMNS).toHaveLength(10);
  });
});
