import { describe, expect, it } from "vitest";
import { presetConfig } from "../../../src/core/config/index.ts";
import { launchSummary, readLaunch, shareUrl } from "../../../src/ui/share.ts";

describe("share links", () => {
  it("opens on the classroom preset when the URL has no config", () => {
    const l = readLaunch("");
    expect(l).toEqual({ config: presetConfig("classroom"), preset: "classroom", fromUrl: false, safe: false, debug: {}, error: null });
    expect(readLaunch("?safe=1").safe).toBe(true);
  });
  it("round-trips a config and seed through a link", () => {
    const config = presetConfig("paper-mini", { alpha: 0.25, seed: 42, mistake_book: false });
    const url = shareUrl("http://localhost:4173/", config, "paper-mini");
    expect(url).toBe("http://localhost:4173/?preset=paper-mini&seed=42&alpha=0.25&mistake_book=false");
    const l = readLaunch(new URL(url).search);
    expect(l.config).toEqual(config);
    expect(l.preset).toBe("paper-mini");
    expect(l.fromUrl).toBe(true);
  });
  it("always states the seed, and keeps safe mode out of the config", () => {
    const url = shareUrl("http://x/app/", presetConfig("classroom"), "classroom");
    expect(new URL(url).searchParams.get("seed")).toBe("1");
    const l = readLaunch("?preset=classroom&safe=1&seed=7");
    expect(l.safe).toBe(true);
    expect(l.config.seed).toBe(7);
  });
  it("falls back to the defaults with an error naming the field on a bad link", () => {
    const l = readLaunch("?alpha=2");
    expect(l.fromUrl).toBe(false);
    expect(l.config).toEqual(presetConfig("classroom"));
    expect(l.error).toMatch(/config\.alpha: expected a value in \[0, 1\], got 2/);
  });
  it("reads the debugging flags apart from the config, and names a bad one", () => {
    const l = readLaunch("?preset=classroom&seed=2&debug_pyodide=/stall/pyodide&debug_watchdog_s=6&debug_stall_trainer=20");
    expect(l.debug).toEqual({ pyodidePath: "/stall/pyodide/", watchdogS: 6, stallTrainerS: 20 });
    expect(l.config).toEqual(presetConfig("classroom", { seed: 2 }));
    expect(l.error).toBeNull();
    // Pyodide only from this site: never another origin's interpreter for the sandbox.
    const bad = readLaunch("?debug_pyodide=//evil.example/pyodide/&debug_watchdog_s=-1&debug_stall_trainer=x");
    expect(bad.debug).toEqual({});
    expect(bad.error).toMatch(/debug_pyodide=\/\/evil\.example\/pyodide\/ \(a path on this site.*debug_watchdog_s=-1 \(seconds.*debug_stall_trainer=x \(seconds/);
  });
  it("says what a link applied beyond its preset", () => {
    const l = readLaunch("?preset=classroom&alpha=0.25&mistake_book=false");
    expect(launchSummary(l.config, l.preset)).toBe("classroom + alpha=0.25 + mistake_book=false, seed 1");
    expect(launchSummary(presetConfig("classroom", { seed: 9 }), "classroom")).toBe("classroom, seed 9");
    expect(launchSummary(presetConfig("classroom", { seed: 3 }), null)).toBe("custom, seed 3");
  });
});
