/**
 * The browser's import runtime in Node: every run of an imported reference through the real
 * grader sandbox (Pyodide child processes under Node's permission model), the parsing in a trusted
 * Pyodide. At least 10 of the fixture's 12 tasks trainable; hostile references loop without hanging
 * the import and cannot load what the sandbox refuses; a pretraining corpus built with the set's
 * code in the sandbox is the one a trusted Pyodide builds.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { importArenaTasks, pythonRuntime, type AreniseResult } from "../../../../src/core/arena/importers/arenise.ts";
import { sandboxRunReference, sandboxRuntime } from "../../../../src/core/arena/importers/arenise-sandbox.ts";
import { arenaVocabulary } from "../../../../src/core/duel/contexts.ts";
import { buildCorpus, corpusHash } from "../../../../src/core/duel/pretrain-corpus.ts";
import { createRoundTrip } from "../../../../src/core/arena/task-round-trip.ts";
import { validateTaskFile } from "../../../../src/core/arena/task.ts";
import { createNodeGrader } from "../../../../src/node/grader.ts";
import { areniseSource, createNodeRunPython, mutateSource } from "../../../../src/node/python-runner.ts";
import type { SupervisedGrader } from "../../../../src/core/grader/supervisor.ts";

const FIXTURE = new URL("../../../fixtures/mbpp-typical-12.jsonl", import.meta.url);
const jsonl = (...recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join("\n") + "\n";

describe("importArenaTasks with references in the grader sandbox", () => {
  let grader: SupervisedGrader;
  const deps = () => {
    const py = pythonRuntime(createNodeRunPython(), areniseSource(), mutateSource());
    return { grader, roundTrip: createRoundTrip(), runtime: sandboxRuntime(grader, { normalise: py.normalise, variants: py.variants }, { callMs: 500 }) };
  };
  let typical: AreniseResult;
  beforeAll(async () => {
    grader = await createNodeGrader();
    typical = await importArenaTasks(readFileSync(FIXTURE, "utf8"), "mbpp", deps());
  }, 300_000);

  it("makes at least 10 of the 12 typical tasks trainable, with preconditions where the reference raises", () => {
    const trainable = typical.report.filter((r) => r.status === "trainable");
    expect(trainable.length).toBeGreaterThanOrEqual(10);
    expect(validateTaskFile(typical.file, { strict: true }).tasks).toHaveLength(trainable.length);
    const gap = typical.report.find((r) => r.id === "mbpp-9001")!;
    expect(gap.preconditions?.map((p) => p.expr)).toEqual(["len(xs) >= 1"]);
    expect(gap.preconditions![0].example).toMatch(/ValueError/);
    for (const r of trainable) expect(r.checkedInputs, r.id).toBeGreaterThanOrEqual(10);
  });

  it("a looping reference costs its time limit per call, never the import; one the sandbox cannot load is refused", async () => {
    const text = jsonl(
      // Loops forever for n == 0 (drawn: the spec is 0..9): a precondition excludes it.
      { task_id: 1, text: "Halve n down to one.", code: "def halvings(n):\n    count = 0\n    while n != 1:\n        n = n // 2\n        count += 1\n    return count", test_list: ["assert halvings(8) == 3", "assert halvings(5) == 2"] },
      // Reaches for the JavaScript bridge at load: the sandbox refuses the import.
      { task_id: 2, text: "Double n.", code: "import js\ndef double(n):\n    return n * 2", test_list: ["assert double(2) == 4", "assert double(5) == 10"] },
    );
    const t0 = Date.now();
    const { report } = await importArenaTasks(text, "mbpp", deps());
    expect(Date.now() - t0).toBeLessThan(120_000);
    expect(report[0].status, JSON.stringify(report[0])).toBe("trainable");
    expect(report[0].preconditions?.[0].example).toMatch(/TimeoutError/);
    expect(report[0].preconditions!.map((p) => p.expr)).toEqual([expect.stringMatching(/^n (>= 1|!= 0)$/)]);
    expect(report[1]).toMatchObject({ status: "refused" });
    expect(report[1].reason).toMatch(/import|js/);
  }, 300_000);

  it("builds the same pretraining corpus with the set's code run in the sandbox as with a trusted Pyodide", async () => {
    const file = { ...typical.file, tasks: typical.file.tasks.slice(0, 3) };
    const vocab = arenaVocabulary();
    const trusted = await buildCorpus(vocab, file, createNodeRunPython(), { seed: 0 });
    const sandboxed = await buildCorpus(vocab, file, { runReference: sandboxRunReference(grader) }, { seed: 0 });
    expect(sandboxed.test.length).toBeGreaterThan(0);
    expect(await corpusHash(sandboxed)).toBe(await corpusHash(trusted));
  }, 300_000);
});
