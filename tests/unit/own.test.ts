/**
 * Keys that come from input (task ids, flags, option and config objects, bundle contents) are
 * looked up as own properties only: "constructor", "toString" and "__proto__" are ordinary names
 * there, never what every object inherits. One test per place that used `obj[key]` / `key in obj`.
 */
import { describe, expect, it } from "vitest";
import { own, setOwn } from "../../src/core/own.ts";
import { CONFIG_KEYS, DEFAULT_CONFIG, parseFullConfig } from "../../src/core/config/index.ts";
import { pretrainOptions } from "../../src/core/duel/pretrain.ts";
import { applyMistakeBookDelta, emptyMistakeBook, topMistakes, updateMistakeBook, type MistakeBook } from "../../src/core/loop/mistake-book.ts";
import { modelConfig } from "../../src/core/policy/config.ts";
import { trainConfig } from "../../src/core/policy/train-config.ts";
import { parseArgs, type FlagSpec } from "../../src/node/cli.ts";
import { applyMistakeBookDelta as applyLiveDelta } from "../../src/ui/mistake-filter.ts";

const INHERITED = ["constructor", "toString", "hasOwnProperty", "__proto__"];

describe("own and setOwn", () => {
  it("see own properties only, and store __proto__ as a value, not as the prototype", () => {
    const rec: Record<string, number> = JSON.parse('{"a": 1, "__proto__": 2}');
    expect(own(rec, "a")).toBe(1);
    expect(own(rec, "__proto__")).toBe(2);
    for (const k of ["constructor", "toString", "b"]) expect(own(rec, k), k).toBeUndefined();
    const out: Record<string, number[]> = {};
    setOwn(out, "__proto__", [1]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(own(out, "__proto__")).toEqual([1]);
  });
});

describe("Mistake Book keyed by task id", () => {
  it("a task may be called constructor or __proto__: update, top-k and deltas keep it as an ordinary task", () => {
    for (const task of INHERITED) {
      const empty = emptyMistakeBook();
      expect(topMistakes(empty, task, 3), task).toEqual([]);
      const r = updateMistakeBook(empty, task, 1, { failed: [{ test: "assert f(1) == 1", code: "def f(x):\n    return 0" }], passed: [] });
      expect(Object.keys(r.book.tasks), task).toEqual([task]);
      expect(Object.getPrototypeOf(r.book.tasks)).toBe(Object.prototype);
      expect(topMistakes(r.book, task, 3).map((e) => e.test)).toEqual(["assert f(1) == 1"]);
      expect(topMistakes(r.book, "other", 3)).toEqual([]);
      // Replayed from the delta (reloading a run), in core and in the live view.
      for (const apply of [applyMistakeBookDelta, applyLiveDelta]) {
        const replayed: MistakeBook = apply(empty, r.delta);
        expect(Object.keys(replayed.tasks), task).toEqual([task]);
        expect(topMistakes(replayed, task, 3)).toEqual(topMistakes(r.book, task, 3));
      }
      // The last entry passing removes the task.
      const gone = updateMistakeBook(r.book, task, 2, { failed: [], passed: ["assert f(1) == 1"] });
      expect(Object.keys(gone.book.tasks)).toEqual([]);
    }
  });
});

describe("named options and configs", () => {
  it("training config and pretraining options refuse inherited names as unknown keys", () => {
    for (const key of INHERITED) {
      const overrides = JSON.parse(`{${JSON.stringify(key)}: 1}`) as Record<string, unknown>;
      expect(() => trainConfig(overrides), key).toThrow(`unknown training config key "${key}"`);
      expect(() => pretrainOptions({ seed: 1, ...overrides }), key).toThrow(`unknown pretrain option "${key}"`);
    }
  });

  it("model sizes are looked up by own name", () => {
    for (const size of INHERITED) {
      expect(() => modelConfig(size as "tiny", 64), size).toThrow(`unknown model size "${size}"`);
      expect(() => modelConfig({ size: size as "tiny" }, 64), size).toThrow(`unknown model size "${size}"`);
      expect(() => pretrainOptions({ seed: 1, size: size as "tiny" }), size).toThrow(`unknown model size "${size}"`);
    }
    expect(modelConfig("tiny", 64).vocab).toBe(64);
  });

  it("a complete config must have every field as its own, not inherited", () => {
    const inherited = Object.create({ ...DEFAULT_CONFIG }) as Record<string, unknown>;
    expect(() => parseFullConfig(inherited)).toThrow(`config.${CONFIG_KEYS[0]}: missing`);
    expect(parseFullConfig({ ...DEFAULT_CONFIG })).toEqual(DEFAULT_CONFIG);
  });
});

describe("command-line flags", () => {
  const specs: Record<string, FlagSpec> = { steps: { kind: "int", help: "steps", min: 1 }, out: { kind: "string", help: "file" } };
  it("an inherited name is an unknown flag, not a flag given twice or a prototype", () => {
    for (const name of INHERITED) {
      expect(() => parseArgs([`--${name}`, "1"], specs, 0), name).toThrow(`unknown flag --${name}; known: --steps, --out`);
    }
    expect(() => parseArgs(["--steps", "1", "--steps", "2"], specs, 0)).toThrow("--steps given twice");
    expect(parseArgs(["--steps", "3", "--out=x"], specs, 0).flags).toEqual({ steps: 3, out: "x" });
  });
});

describe("evaluation maps keyed by task id", () => {
  it("a bench task called constructor with no codes or suites given is skipped, not read from Object", async () => {
    const { evaluateCodes, evaluateSuites } = await import("../../src/core/arena/metrics-evaluate.ts");
    const task = { id: "constructor", entry_point: "f", reference: "def f(x):\n    return x", golden_tests: ["assert f(1) == 1"], buggy_variants: [], split: "heldout" } as never;
    const bench = { tasks: [task], plus: new Map(), mutants: new Map() };
    const grader = { grade: async () => ({ codes: [], suites: [], golden: [] }), close: async () => {} } as never;
    expect((await evaluateCodes(grader, bench, {})).perTask).toEqual([]);
    expect((await evaluateSuites(grader, bench, {})).perTask).toEqual([]);
  });
});
