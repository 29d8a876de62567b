import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ABLATIONS,
  ALPHA_SWEEP,
  CONFIG_FIELDS,
  CONFIG_KEYS,
  ConfigError,
  DEFAULT_CONFIG,
  PRESET_NAMES,
  configFromQuery,
  configToQuery,
  fieldFromText,
  parseConfig,
  parseFullConfig,
  presetConfig,
  withAblation,
  type Config,
} from "../../../src/core/config/index.ts";
import { renderConfigDoc } from "../../../src/core/config/docs.ts";
import { parseFieldText } from "../../../src/ui/settings-form.ts";

function errorOf(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("expected a ConfigError");
}

describe("config schema", () => {
  it("defaults come from the table and validate", () => {
    expect(parseFullConfig({ ...DEFAULT_CONFIG })).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG.alpha).toBe(0.5);
    expect(DEFAULT_CONFIG.mode).toBe("code-a1");
    for (const k of CONFIG_KEYS) expect(DEFAULT_CONFIG[k]).toBe(CONFIG_FIELDS[k].default);
  });

  it("uses TRL GRPOConfig names", () => {
    for (const k of ["num_generations", "learning_rate", "beta", "epsilon", "epsilon_high", "temperature", "top_p", "max_completion_length", "warmup_steps", "weight_decay", "max_grad_norm", "num_iterations"]) {
      expect(CONFIG_KEYS).toContain(k);
    }
  });

  it("rejects unknown keys with a suggestion", () => {
    const e = errorOf(() => parseConfig({ alpah: 0.3 }));
    expect(e.field).toBe("alpah");
    expect(e.message).toMatch(/unknown field \(did you mean alpha\?\)/);
  });

  it("rejects bad values naming the field", () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ alpha: 1.5 }, "alpha", /\[0, 1\], got 1.5/],
      [{ alpha: "0.5" }, "alpha", /finite number/],
      [{ num_generations: 4.5 }, "num_generations", /integer/],
      [{ learning_rate: 0 }, "learning_rate", /\(0, 1\]/],
      [{ mode: "selfplay" }, "mode", /one of code-a1, golden-tests/],
      [{ mistake_book: "yes" }, "mistake_book", /true or false/],
      [{ steps: Number.NaN }, "steps", /finite/],
      [{ topvar_k: 5, num_generations: 4 }, "topvar_k", /at most num_generations/],
      [{ epsilon: 0.3, epsilon_high: 0.2 }, "epsilon_high", /at least epsilon/],
    ];
    for (const [input, field, re] of cases) {
      const e = errorOf(() => parseConfig(input));
      expect(e.field).toBe(field);
      expect(e.message).toMatch(re);
      expect(e.message.startsWith(`config.${field}:`)).toBe(true);
    }
    expect(errorOf(() => parseConfig([])).field).toBe("(root)");
  });

  it("task_set names a built-in set or an imported one (imported:HASH16), in a config, a link and the form", () => {
    expect(parseConfig({ task_set: "imported:0123456789abcdef" }).task_set).toBe("imported:0123456789abcdef");
    expect(configFromQuery(configToQuery(parseConfig({ task_set: "imported:0123456789abcdef" }))).config.task_set).toBe("imported:0123456789abcdef");
    expect(fieldFromText("task_set", " arena-v1 ")).toBe("arena-v1");
    for (const bad of ["imported:0123", "imported:0123456789ABCDEF", "imported:0123456789abcdef0", "my-tasks.json"]) {
      expect(() => parseConfig({ task_set: bad }), bad).toThrow(/task_set.*one of arena-v2, arena-v1, imported:HASH16/);
    }
  });

  it("a full config must have every field", () => {
    const { seed: _seed, ...partial } = DEFAULT_CONFIG;
    expect(errorOf(() => parseFullConfig(partial)).field).toBe("seed");
  });

  it("a config stored before topvar, mini_batches, drop_zero_advantage, task_order and backend existed trains as it did", () => {
    const { topvar: _a, mini_batches: _b, drop_zero_advantage: _c, task_order: _d, backend: _e, ...old } = DEFAULT_CONFIG;
    expect(parseFullConfig(old)).toEqual({ ...DEFAULT_CONFIG, topvar: true, mini_batches: 1, drop_zero_advantage: true, task_order: "random", backend: "auto" });
    // Stored values win over the legacy ones.
    expect(parseFullConfig({ ...old, mini_batches: 3 }).mini_batches).toBe(3);
  });
});

describe("presets", () => {
  it("every preset is a valid config", () => {
    for (const name of PRESET_NAMES) expect(() => presetConfig(name)).not.toThrow();
    expect(errorOf(() => presetConfig("papermini")).field).toBe("preset");
  });
  it("paper-mini keeps the spec's ratios", () => {
    const c = presetConfig("paper-mini");
    expect([c.num_generations, c.suites_per_code, c.tests_per_suite, c.alpha, c.topvar_k, c.mistake_book_top_k]).toEqual([8, 8, 8, 0.5, 1, 8]);
    expect([c.epsilon, c.epsilon_high, c.beta, c.temperature, c.top_p]).toEqual([0.2, 0.28, 0.001, 1, 1]);
  });
  it("classroom is smaller than paper-mini per step", () => {
    const a = presetConfig("classroom");
    const b = presetConfig("paper-mini");
    const work = (c: Config) => c.tasks_per_step * c.num_generations * c.suites_per_code;
    expect(work(a)).toBeLessThan(work(b));
  });
  it("ablations overlay any base", () => {
    expect(presetConfig("no-mistake-book").mistake_book).toBe(false);
    expect(presetConfig("black-box").white_box).toBe(false);
    const pm = withAblation(presetConfig("paper-mini"), "alpha-0.25");
    expect(pm.alpha).toBe(0.25);
    expect(pm.num_generations).toBe(8);
    const sweep = Object.values(ABLATIONS).flatMap((o) => ("alpha" in o ? [o.alpha] : []));
    expect([...sweep, 0.5].sort()).toEqual([...ALPHA_SWEEP].sort());
  });
});

describe("URL query", () => {
  it("round-trips every preset and arbitrary edits, writing only differences", () => {
    expect(configToQuery(DEFAULT_CONFIG)).toBe("");
    const c = parseConfig({ alpha: 0.25, mistake_book: false, mode: "self-play", learning_rate: 3e-5, seed: 4294967295 });
    const q = configToQuery(c);
    expect(q).toBe("mode=self-play&seed=4294967295&alpha=0.25&mistake_book=false&learning_rate=0.00003");
    expect(configFromQuery(q)).toEqual({ config: c, preset: null });
    expect(configFromQuery(`?${q}`).config).toEqual(c);
    for (const name of PRESET_NAMES) {
      const pc = presetConfig(name, { seed: 7 });
      const pq = configToQuery(pc, name);
      expect(pq).toBe(`preset=${encodeURIComponent(name)}&seed=7`);
      expect(configFromQuery(pq)).toEqual({ config: pc, preset: name });
    }
  });
  it("rejects unknown, repeated and malformed entries naming the field", () => {
    expect(errorOf(() => configFromQuery("alpah=0.1")).field).toBe("alpah");
    expect(errorOf(() => configFromQuery("alpha=0.1&alpha=0.2")).field).toBe("alpha");
    expect(errorOf(() => configFromQuery("alpha=abc")).message).toMatch(/expected a number, got "abc"/);
    expect(errorOf(() => configFromQuery("alpha=")).field).toBe("alpha");
    expect(errorOf(() => configFromQuery("white_box=1")).message).toMatch(/true or false/);
    expect(errorOf(() => configFromQuery("preset=huge")).field).toBe("preset");
    expect(errorOf(() => configFromQuery("steps=1e9")).message).toMatch(/\[1, 100000\]/);
  });
  it("names every bad field of a query, not only the first", () => {
    const e = errorOf(() => configFromQuery("preset=classroom&alpha=abc&alpah=0.1&steps=0&seed=3"));
    expect(e.field).toBe("alpha, alpah, steps");
    expect(e.message).toMatch(/^config\.alpha: expected a number.*; config\.alpah: .*; config\.steps: /);
  });
});

describe("text to value", () => {
  it("one parser for the URL, the settings form and the command line", () => {
    expect(parseFieldText).toBe(fieldFromText);
    expect(fieldFromText("alpha", " 0.25 ")).toBe(0.25);
    expect(fieldFromText("learning_rate", "1e-3")).toBe(0.001);
    expect(fieldFromText("topvar", "false")).toBe(false);
    expect(fieldFromText("mode", "cure")).toBe("cure");
    expect(() => fieldFromText("seed", "1.5")).toThrow(/config\.seed: expected an integer/);
    expect(() => fieldFromText("alpha", "0x1")).toThrow(/config\.alpha: expected a number, got "0x1"/);
    expect(() => fieldFromText("alpah", "1")).toThrow(/did you mean alpha/);
    // Every field round-trips through its own text.
    for (const k of CONFIG_KEYS) expect(fieldFromText(k, String(DEFAULT_CONFIG[k]))).toBe(DEFAULT_CONFIG[k]);
  });
});

describe("docs/CONFIG.md", () => {
  it("matches the field table (regenerate: npx tsx scripts/config-doc.ts)", () => {
    const doc = readFileSync(new URL("../../../docs/CONFIG.md", import.meta.url), "utf8");
    expect(doc).toBe(renderConfigDoc());
  });
  it("documents every field once", () => {
    const doc = renderConfigDoc();
    for (const k of CONFIG_KEYS) expect(doc.split(`| \`${k}\``).length - 1).toBe(1);
  });
});

describe("short runs", () => {
  it("a 1-step run of any preset is valid (warm-up longer than the run is allowed)", () => {
    for (const name of PRESET_NAMES) expect(presetConfig(name, { steps: 1 }).steps).toBe(1);
  });
});
