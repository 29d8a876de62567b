/**
 * WebGPU in Node through Dawn (src/node/dawn.ts): without its binding, asking for webgpu says what is
 * missing and falls back to wasm; a player asked for webgpu trains on wasm and says why.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs";
import { describe, expect, it } from "vitest";
import { DawnUnavailableError, installDawn } from "../../../src/node/dawn.ts";
import { useNodeBackend } from "../../../src/node/tf-backend.ts";
import { arenaVocabulary } from "../../../src/core/duel/contexts.ts";
import { nodePlayer } from "../../../src/node/node-players.ts";

describe("Dawn in Node", () => {
  it("names what is missing: no ARENA_DAWN, a folder without the binding, a binding that does not load", async () => {
    await expect(installDawn(undefined)).rejects.toThrow(/set ARENA_DAWN to an unpacked `npm pack webgpu@/);
    const empty = mkdtempSync(join(tmpdir(), "dawn-"));
    await expect(installDawn(empty)).rejects.toThrow(new RegExp(`ARENA_DAWN=${empty}: no index.js there`));
    const broken = mkdtempSync(join(tmpdir(), "dawn-"));
    writeFileSync(join(broken, "index.js"), "throw new Error('no dawn.node for this platform');\n");
    const err = await installDawn(broken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DawnUnavailableError);
    expect((err as Error).message).toMatch(/Dawn's binding did not load: no dawn.node for this platform/);
    expect((globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu).toBeUndefined();
  });

  it("useNodeBackend('webgpu') without Dawn runs wasm and says why", async () => {
    const saved = process.env.ARENA_DAWN;
    delete process.env.ARENA_DAWN;
    try {
      const choice = await useNodeBackend("webgpu");
      expect(choice.backend).toBe("wasm");
      expect(tf.getBackend()).toBe("wasm");
      expect(choice.reason).toMatch(/^wasm, because webgpu is unavailable: webgpu in Node needs Dawn's Node binding/);
      expect(choice.tried[0].backend).toBe("webgpu");
    } finally {
      if (saved !== undefined) process.env.ARENA_DAWN = saved;
    }
  });

  it("a player asked for webgpu trains on wasm without Dawn, and reports why", async () => {
    const vocab = arenaVocabulary();
    const player = await nodePlayer(vocab)("code", { fresh: { size: "tiny", vocab: vocab.size, seed: 1 } }, {}, "webgpu");
    try {
      expect(player.backend?.backend).toBe("wasm");
      expect(player.backend?.reason).toMatch(/webgpu is unavailable/);
    } finally {
      player.dispose?.();
    }
  });
});
