/**
 * Rule 5 of the grader (docs/SECURITY.md): a reference-corrected line's answer is a Python literal
 * that parses back to exactly the reference output. The harness's `_lit` is checked here on
 * thousands of seeded random values (nested containers, extreme floats, huge ints, every kind of
 * string), against `ast` and the harness's own canonical form, in real Pyodide.
 */
import { expect, it } from "vitest";
import { createNodeRunPython } from "../../../src/node/python-runner.ts";
import { readFileSync } from "node:fs";
import { HARNESS_PATH } from "../../../src/node/grader.ts";

const PROPERTY = `
import ast, json, random
ns = {"__name__": "harness"}
exec(HARNESS, ns)
lit, canonical, literal = ns["_lit"], ns["canonical"], ns["_literal"]
rng = random.Random(7)
def scalar():
    k = rng.randrange(7)
    if k == 0: return rng.choice([0, -1, 7, 10**30, -(10**4500), 2**64 + 1])
    if k == 1: return rng.choice([0.0, -0.0, 1e-320, 1.5e308, float("inf"), float("-inf"), 0.1 + 0.2, rng.uniform(-1e9, 1e9)])
    if k == 2: return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 32), rng.randrange(0x80, 0x2000), 0xD800, 0x1F600, 0x2028, 39, 34, 92])) for _ in range(rng.randrange(6)))
    if k == 3: return rng.choice([True, False])
    if k == 4: return None
    return rng.randrange(-100, 100)
def value(depth=0):
    if depth > 3 or rng.random() < 0.4: return scalar()
    k = rng.randrange(4)
    items = [value(depth + 1) for _ in range(rng.randrange(4))]
    if k == 0: return items
    if k == 1: return tuple(items)
    def hashable(x):
        try:
            hash(x)
            return True
        except TypeError:
            return False
    keys = [x for x in items if hashable(x)]
    if k == 2: return set(keys)
    return {x: value(depth + 1) for x in keys}
bad = []
for i in range(3000):
    v = value()
    text = lit(v)
    back = literal(ast.parse(text, mode="eval").body)
    if canonical(back) != canonical(v):
        bad.append(text[:80])
json.dumps({"checked": 3000, "bad": bad[:5]})
`;

it("every literal _lit writes parses back to exactly its value (3,000 seeded random values)", async () => {
  const run = createNodeRunPython();
  const out = JSON.parse(await run(`HARNESS = ${JSON.stringify(readFileSync(HARNESS_PATH, "utf8"))}\n${PROPERTY}`)) as { checked: number; bad: string[] };
  expect(out.bad).toEqual([]);
  expect(out.checked).toBe(3000);
}, 120_000);
