/**
 * Reward parity (docs/SCALING.md): src/core/export/arena_reward.py, the module a verl export carries
 * for the reference's reward manager, run on the duel records of a real arena run (trainRun: tfjs
 * players, the Pyodide grader, the Mistake Book replaying over 3 steps of the same 2 tasks), in
 * Pyodide under Node and in CPython where python3 exists. Every R_C, R_val, R_adv, R_T and TopVar
 * spread must match the TypeScript core's to 1e-9; TopVar's choice, the Mistake Book tests shown,
 * every Mistake Book delta and the final book must be equal, and so must ArenaMistakeBook's (the
 * reference MistakeBook's interface, saved and reloaded). Canonical equality is checked on seeded
 * random value pairs against canonical.ts's sameValue.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { beforeAll, describe, expect, it } from "vitest";
import { arenaV1 } from "../../../src/core/arena/task-suite.ts";
import type { TaskFile } from "../../../src/core/arena/task.ts";
import type { RunSnapshot } from "../../../src/core/bundle.ts";
import { presetConfig } from "../../../src/core/config/index.ts";
import { testerCodesPerTask } from "../../../src/core/duel/modes.ts";
import { sameValue, type Canonical } from "../../../src/core/grader/canonical.ts";
import type { MistakeBookDelta, MistakeEntry } from "../../../src/core/loop/mistake-book.ts";
import { Rng } from "../../../src/core/rng.ts";
import { trainRun } from "../../../src/node/train-run.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { sharedNodeGrader } from "../node-grader.ts";
import { FLOATS, nearValue, randomValue } from "./values.ts";

const MODULE = readFileSync(new URL("../../../src/core/export/arena_reward.py", import.meta.url), "utf8");
const DRIVER_PATH = new URL("./parity_driver.py", import.meta.url);
const MODULE_DIR = new URL("../../../src/core/export/", import.meta.url);
const TOL = 1e-9;

// Not the defaults, so that each reaches the Python side: alpha 0.25, N 4, top-k 3.
const config = presetConfig("classroom", {
  steps: 3, tasks_per_step: 2, num_generations: 3, suites_per_code: 3, tests_per_suite: 4, alpha: 0.25,
  mistake_book_top_k: 3, eval_every: 0, checkpoint_every: 3, seed: 11,
});

interface PyRecord {
  step: number;
  task: string;
  shown: string[];
  scores: { codes: { reward: number; suites: { r_val: number; r_adv: number; reward: number }[] }[]; topvar: { std: number[]; selected: number[] } };
  delta: MistakeBookDelta;
  adapter: [number, number][][];
}
interface PyResult {
  records: PyRecord[];
  book: Record<string, MistakeEntry[]>;
  class_book: Record<string, MistakeEntry[]>;
  class_reloaded: Record<string, MistakeEntry[]>;
  class_shown: string[][];
  equal: boolean[];
  normal: [Canonical, Canonical][];
}

/** Scalar edge pairs (each float against its neighbours at and past the tolerance, across types), then seeded random pairs. */
function valuePairs(count: number): [Canonical, Canonical][] {
  const rng = new Rng("reward-parity values");
  const floats: Canonical[] = [...FLOATS.map((x): Canonical => ["f", String(x)]), ["f", "inf"], ["f", "-inf"], ["f", "nan"]];
  const edges = floats.flatMap((a): [Canonical, Canonical][] => {
    const x = Number(a[1]);
    const near = [0, 5e-10, -5e-10, 2e-9, -2e-9].map((d): Canonical => ["f", Number.isFinite(x) ? String(x + d * Math.max(1, Math.abs(x))) : a[1] as string]);
    return [...near.map((b): [Canonical, Canonical] => [a, b]), ...floats.map((b): [Canonical, Canonical] => [a, b]), [a, ["i", "0x1"]], [a, ["b", true]]];
  });
  return [...edges, ...Array.from({ length: count }, (): [Canonical, Canonical] => {
    const a = randomValue(rng, 0);
    const r = rng.next();
    return [a, r < 0.3 ? a : r < 0.8 ? nearValue(a, rng) : randomValue(rng, 0)];
  })];
}

describe("arena_reward.py against the TypeScript core, on a real run", () => {
  const grader = sharedNodeGrader();
  let snapshot: RunSnapshot;
  let payload: string;
  let py: PyodideInterface;

  beforeAll(async () => {
    useNodeBackend("wasm");
    const v1 = arenaV1();
    const train = v1.tasks.filter((t) => t.split === "train").slice(0, 2);
    const file: TaskFile = { version: 1, name: "parity", tasks: [...train, v1.tasks.find((t) => t.split === "heldout")!] };
    snapshot = (await trainRun({ config, file, grader, out: null, runId: "parity", evaluation: null })).snapshot;
    payload = JSON.stringify({
      alpha: config.alpha, n: config.tests_per_suite, topvar_k: testerCodesPerTask(config), top_k: config.mistake_book_top_k,
      steps: snapshot.duels.slice().sort((a, b) => a.step - b.step), pairs: valuePairs(400),
    });
    py = await loadPyodide();
    py.FS.writeFile("/home/pyodide/arena_reward.py", MODULE);
    py.runPython(readFileSync(DRIVER_PATH, "utf8"));
  }, 900_000);

  function check(r: PyResult): void {
    const records = snapshot.duels.slice().sort((a, b) => a.step - b.step).flatMap((d) => d.records.map((rec) => ({ step: d.step, rec })));
    expect(r.records).toHaveLength(records.length);
    expect(records.length).toBe(config.steps * config.tasks_per_step);
    let pairs = 0;
    let replays = 0;
    records.forEach(({ step, rec }, i) => {
      const p = r.records[i];
      expect([p.step, p.task]).toEqual([step, rec.task]);
      expect(p.shown).toEqual(rec.mistake_book_tests);
      if (rec.mistake_book_tests.length > 0) replays++;
      rec.codes.forEach((c, ci) => {
        expect(Math.abs(p.scores.codes[ci].reward - c.reward)).toBeLessThanOrEqual(TOL);
        const adapterCode = p.adapter[ci].reduce((a, [ra]) => a + ra, 0) / p.adapter[ci].length;
        expect(Math.abs(adapterCode - c.reward)).toBeLessThanOrEqual(TOL);
        c.suites.forEach((s, si) => {
          const q = p.scores.codes[ci].suites[si];
          expect(Math.abs(q.r_val - s.r_val!)).toBeLessThanOrEqual(TOL);
          expect(Math.abs(q.r_adv - s.r_adv!)).toBeLessThanOrEqual(TOL);
          expect(Math.abs(q.reward - s.reward)).toBeLessThanOrEqual(TOL);
          expect(Math.abs(p.adapter[ci][si][1] - s.reward)).toBeLessThanOrEqual(TOL);
          pairs++;
        });
      });
      p.scores.topvar.std.forEach((s, k) => expect(Math.abs(s - rec.topvar.std[k])).toBeLessThanOrEqual(TOL));
      expect(p.scores.topvar.selected).toEqual(rec.topvar.selected);
      expect(p.delta).toEqual(rec.mistake_book);
    });
    expect(pairs).toBe(records.length * config.num_generations * config.suites_per_code);
    // The run exercised what parity is about: stored tests replayed, entries added, rewards spread.
    expect(replays).toBeGreaterThan(0);
    expect(records.some(({ rec }) => rec.mistake_book.added.length > 0)).toBe(true);
    expect(new Set(records.flatMap(({ rec }) => rec.codes.flatMap((c) => c.suites.map((s) => s.reward)))).size).toBeGreaterThan(2);
    expect(r.book).toEqual(snapshot.mistake_book.tasks);
    // ArenaMistakeBook (the reference MistakeBook's interface): the same tests shown, the same book, saved and loaded.
    expect(r.class_shown).toEqual(records.map(({ rec }) => rec.mistake_book_tests));
    expect(r.class_book).toEqual(snapshot.mistake_book.tasks);
    expect(r.class_reloaded).toEqual(snapshot.mistake_book.tasks);
    // Canonical equality: Python's same_value on the values, canonical.ts on their canonical forms.
    r.normal.forEach(([a, b], k) => expect([k, sameValue(a, b)]).toEqual([k, r.equal[k]]));
    const trues = r.equal.filter(Boolean).length;
    expect(trues).toBeGreaterThan(40);
    expect(r.equal.length - trues).toBeGreaterThan(40);
  }

  it("in Pyodide: the same rewards, TopVar and Mistake Book as the run recorded", () => {
    const parity = py.globals.get("parity") as (s: string) => string;
    check(JSON.parse(parity(payload)) as PyResult);
  });

  const python3 = spawnSync("python3", ["--version"]).status === 0;
  it.skipIf(!python3)("in CPython (python3): the same", () => {
    const r = spawnSync("python3", [DRIVER_PATH.pathname, MODULE_DIR.pathname], { input: payload, encoding: "utf8", maxBuffer: 256 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    check(JSON.parse(r.stdout) as PyResult);
  });
});
