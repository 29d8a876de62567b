/**
 * Red-team: a hostile task file must not hold the page. importJsonl runs on the page's thread
 * (src/browser/task-set-import.ts), before anything reaches a worker, so any super-linear pattern over a
 * record's text is a hang. Each attack is timed against the pattern it replaced (the control: the
 * same input through the old pattern takes many times longer, so the bound can fail).
 */
import { describe, expect, it } from "vitest";
import { importJsonl } from "../../../../src/core/arena/importers/import.ts";

const timed = (fn: () => unknown) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};
const attempt = (text: string) => () => {
  try {
    importJsonl(text, "mbpp");
  } catch {
    // refused with an ImportError: what matters here is how long it took
  }
};

describe("importJsonl against hostile records (page thread)", () => {
  it("a reference of many unclosed `def f(` is read in linear time", () => {
    const code = "def f(" + "def f(".repeat(40_000) + "\nreturn 1";
    const text = JSON.stringify({ task_id: 1, text: "x", code, test_list: ["assert f(1) == 1", "assert f(2) == 1"] }) + "\n";
    const ms = timed(attempt(text));
    // Control: the pattern this replaced, on the same reference.
    const old = timed(() => [...code.matchAll(/\bdef\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)/g)]);
    expect(old).toBeGreaterThan(1000);
    expect(ms).toBeLessThan(Math.max(300, old / 10));
  });

  it("a test line that is one long name with no call is read in linear time", () => {
    const line = "assert " + "a".repeat(80_000);
    const text = JSON.stringify({ task_id: 1, text: "x", code: "def f(n):\n    return n", test_list: [line, "assert f(1) == 1"] }) + "\n";
    const ms = timed(attempt(text));
    const old = timed(() => [...line.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)]);
    expect(old).toBeGreaterThan(1000);
    expect(ms).toBeLessThan(Math.max(300, old / 10));
  });

  it("still reads the parameters of the entry point, annotations and defaults included", () => {
    const code = "def helper(a):\n    return a\ndef g(xs: list, k=helper(1)):\n    return k";
    const { file } = importJsonl(JSON.stringify({ task_id: 7, text: "x", code, test_list: ["assert g([1], 2) == 2", "assert g([], 3) == 3"] }) + "\n", "mbpp");
    expect(file.tasks[0].params.map((p) => p.name)).toEqual(["xs", "k"]);
  });
});
