import { describe, expect, it } from "vitest";
import { adapterName, gpuProbeText } from "../../../src/ui/gpu-probe.ts";
import { DEFAULT_PREFS, effectiveTheme, loadPrefs, savePrefs, toggledTheme } from "../../../src/ui/prefs.ts";
import { routeFromHash } from "../../../src/ui/app.ts";

describe("display preferences", () => {
  it("follow the system theme until toggled, then flip the theme in effect", () => {
    expect(effectiveTheme("auto", true)).toBe("dark");
    expect(effectiveTheme("auto", false)).toBe("light");
    expect(effectiveTheme("light", true)).toBe("light");
    expect(toggledTheme("auto", true)).toBe("light");
    expect(toggledTheme("auto", false)).toBe("dark");
  });
  it("round-trip through storage and survive garbage", () => {
    const mem = new Map<string, string>();
    const storage = { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) };
    savePrefs(storage, { theme: "dark", largeType: true, welcomed: true });
    expect(loadPrefs(storage)).toEqual({ theme: "dark", largeType: true, welcomed: true });
    mem.set("code-a1-arena:prefs", "{not json");
    expect(loadPrefs(storage)).toEqual(DEFAULT_PREFS);
    mem.set("code-a1-arena:prefs", JSON.stringify({ theme: "neon", largeType: "yes" }));
    expect(loadPrefs(storage)).toEqual(DEFAULT_PREFS);
    expect(loadPrefs(null)).toEqual(DEFAULT_PREFS);
  });
});

describe("shell helpers", () => {
  it("names the WebGPU adapter from whatever GPUAdapterInfo fields are set", () => {
    expect(adapterName({ vendor: "google", architecture: "swiftshader", device: "", description: "" })).toBe("google swiftshader");
    expect(adapterName({ description: "NVIDIA GeForce RTX 3060" })).toBe("NVIDIA GeForce RTX 3060");
    expect(adapterName(undefined)).toBe("unknown adapter");
  });
  it("says before a run what the backend setting will make of the adapter", () => {
    const swiftshader = { adapter: "google swiftshader", reason: "", software: "is a fallback adapter (the browser's CPU implementation)" };
    expect(gpuProbeText(swiftshader, "auto")).toBe("WebGPU available: google swiftshader, which is a fallback adapter (the browser's CPU implementation): runs use wasm (?backend=webgpu forces it)");
    expect(gpuProbeText(swiftshader, "webgpu")).toBe("WebGPU forced: google swiftshader");
    expect(gpuProbeText({ adapter: "NVIDIA GeForce RTX 3060", reason: "", software: null }, "auto")).toMatch(/probe against wasm decides/);
    expect(gpuProbeText({ adapter: null, reason: "navigator.gpu is missing", software: null }, "auto")).toBe("No WebGPU (navigator.gpu is missing): runs use wasm");
  });
  it("routes unknown hashes to the dashboard", () => {
    expect(routeFromHash("#/duel")).toBe("duel");
    expect(routeFromHash("#duel")).toBe("duel");
    expect(routeFromHash("#/nope")).toBe("dashboard");
    expect(routeFromHash("")).toBe("dashboard");
  });
});
