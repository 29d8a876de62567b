import { describe, expect, it } from "vitest";
import { CONFIG_KEYS, DEFAULT_CONFIG } from "../../../src/core/config/index.ts";
import { applyFieldEdit, fieldViews, parseFieldText } from "../../../src/ui/settings-form.ts";

describe("settings form", () => {
  it("has one documented input per config field, with its bounds", () => {
    const views = fieldViews();
    expect(views.map((v) => v.key)).toEqual(CONFIG_KEYS);
    for (const v of views) expect(v.effect.length).toBeGreaterThan(10);
    expect(views.find((v) => v.key === "temperature")!.range).toBe("(0, 4]");
    expect(views.find((v) => v.key === "steps")!.range).toBe("1..100000");
    expect(views.find((v) => v.key === "mode")!.options).toContain("code-a1");
  });
  it("parses typed text and names the field in errors", () => {
    expect(parseFieldText("alpha", " 0.25 ")).toBe(0.25);
    expect(parseFieldText("mistake_book", "false")).toBe(false);
    expect(() => parseFieldText("alpha", "abc")).toThrow('config.alpha: expected a number, got "abc"');
    expect(() => parseFieldText("alpha", "1.5")).toThrow("config.alpha: expected a value in [0, 1], got 1.5");
    expect(() => parseFieldText("steps", "2.5")).toThrow("config.steps: expected an integer, got 2.5");
    expect(() => parseFieldText("mode", "cheat")).toThrow(/config.mode: expected one of code-a1/);
    expect(() => parseFieldText("aplha", "1")).toThrow(/did you mean alpha/);
  });
  it("applies an edit or reports the field to highlight, including rules between fields", () => {
    const ok = applyFieldEdit(DEFAULT_CONFIG, "alpha", "0.75");
    expect(ok).toEqual({ ok: true, config: { ...DEFAULT_CONFIG, alpha: 0.75 } });
    const cross = applyFieldEdit(DEFAULT_CONFIG, "topvar_k", "9");
    expect(cross).toEqual({ ok: false, field: "topvar_k", message: "config.topvar_k: must be at most num_generations (4), got 9" });
    const bad = applyFieldEdit(DEFAULT_CONFIG, "learning_rate", "0");
    expect(bad.ok).toBe(false);
  });
});
