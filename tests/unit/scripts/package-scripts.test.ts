/**
 * npm runs `preX` and `postX` around `npm run X` on its own: a command named `pretrain` ran a whole
 * base pretraining before every `npm run train`. No script may be the hook of another.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const scripts = Object.keys((JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts);

/** Scripts npm would run as a hook of another script (`preX` / `postX` where `X` is a script). */
export function lifecycleHooks(names: string[]): string[] {
  const set = new Set(names);
  return names.filter((n) => /^(pre|post)./.test(n) && set.has(n.replace(/^(pre|post)/, "")));
}

describe("package.json scripts", () => {
  it("none is run by npm as a pre- or post-hook of another", () => {
    expect(lifecycleHooks(scripts)).toEqual([]);
  });

  it("the hook finder sees the clash that ran pretraining before train", () => {
    expect(lifecycleHooks(["train", "pretrain", "postbuild", "build", "pretrain-base"])).toEqual(["pretrain", "postbuild"]);
  });

  it("the documented commands exist", () => {
    for (const name of ["dev", "build", "test", "pretrain-base", "train", "eval", "reproduce", "bench"]) expect(scripts).toContain(name);
  });
});
