/**
 * The backend decision with fake adapter infos (what Chromium reports for SwiftShader, llvmpipe, a
 * fallback adapter, a real GPU), and its wiring: the probe runs only where the adapter does not decide,
 * a forced or decided backend that cannot start falls back and says so.
 */
import * as tf from "@tensorflow/tfjs";
import { beforeAll, describe, expect, it } from "vitest";
import { chooseBackend, chooseBackendOrder, timeProbe } from "../../../src/core/policy/backend.ts";
import { type AdapterInfoLike, type AdapterReport, decideBackend, requestAdapterReport, softwareAdapter } from "../../../src/core/policy/backend-choice.ts";
import { setupBackend } from "./helpers.ts";

beforeAll(setupBackend);

// As Chromium 13x reports them (GPUAdapterInfo); SwiftShader's description varies by version.
const SWIFTSHADER: AdapterInfoLike = { vendor: "google", architecture: "swiftshader", device: "", description: "" };
const SWIFTSHADER_DESCRIBED: AdapterInfoLike = { vendor: "", architecture: "", device: "", description: "SwiftShader Device (Subzero)" };
const LLVMPIPE: AdapterInfoLike = { vendor: "mesa", architecture: "", device: "", description: "llvmpipe (LLVM 15.0.6, 256 bits)" };
const WARP: AdapterInfoLike = { vendor: "microsoft", architecture: "", device: "", description: "Microsoft Basic Render Driver" };
const NVIDIA: AdapterInfoLike = { vendor: "nvidia", architecture: "ampere", device: "", description: "NVIDIA GeForce RTX 3060" };
const INTEL: AdapterInfoLike = { vendor: "intel", architecture: "gen-12lp", device: "", description: "" };

describe("softwareAdapter", () => {
  it("names known CPU renderers and the fallback flag, and leaves real GPUs alone", () => {
    expect(softwareAdapter(SWIFTSHADER)).toMatch(/SwiftShader, a software renderer/);
    expect(softwareAdapter(SWIFTSHADER_DESCRIBED)).toMatch(/SwiftShader/);
    expect(softwareAdapter(LLVMPIPE)).toMatch(/llvmpipe/);
    expect(softwareAdapter(WARP)).toMatch(/Microsoft Basic Render Driver/);
    expect(softwareAdapter({ ...NVIDIA, isFallbackAdapter: true })).toMatch(/fallback adapter/);
    expect(softwareAdapter(NVIDIA)).toBeNull();
    expect(softwareAdapter(INTEL)).toBeNull();
    expect(softwareAdapter({})).toBeNull();
  });
});

describe("decideBackend", () => {
  const gpu = (info: AdapterInfoLike): AdapterReport => ({ info });

  it("auto never trains on a software or fallback adapter, and says why", () => {
    for (const info of [SWIFTSHADER, SWIFTSHADER_DESCRIBED, LLVMPIPE, WARP, { ...NVIDIA, isFallbackAdapter: true }]) {
      const d = decideBackend("auto", gpu(info));
      expect(d.kind).toBe("order");
      if (d.kind !== "order") continue;
      expect(d.order).toEqual(["wasm", "cpu"]);
      expect(d.reason).toMatch(/^wasm, because the WebGPU adapter \(.+\) is /);
    }
    expect(decideBackend("auto", gpu(SWIFTSHADER))).toMatchObject({ reason: "wasm, because the WebGPU adapter (google swiftshader) is SwiftShader, a software renderer on the CPU" });
  });

  it("auto without an adapter: wasm, with the browser's reason", () => {
    const d = decideBackend("auto", { unavailable: "navigator.gpu is missing" });
    expect(d).toEqual({ kind: "order", order: ["wasm", "cpu"], reason: "wasm, because webgpu is unavailable: navigator.gpu is missing", adapter: null });
  });

  it("auto on a real GPU asks for the probe, then takes the faster backend", () => {
    expect(decideBackend("auto", gpu(NVIDIA))).toEqual({ kind: "probe", adapter: "NVIDIA GeForce RTX 3060" });
    const fast = decideBackend("auto", gpu(NVIDIA), { webgpuMs: 4, wasmMs: 30 });
    expect(fast).toMatchObject({ order: ["webgpu", "wasm", "cpu"], adapter: "NVIDIA GeForce RTX 3060" });
    expect(fast.kind === "order" && fast.reason).toBe("webgpu, because it ran the probe in 4.0 ms, wasm in 30.0 ms");
    expect(decideBackend("auto", gpu(INTEL), { webgpuMs: 31, wasmMs: 30 })).toMatchObject({ order: ["wasm", "cpu"], reason: "wasm, because the WebGPU adapter (intel gen-12lp) ran the probe in 31.0 ms, wasm in 30.0 ms" });
    expect(decideBackend("auto", gpu(INTEL), { webgpuMs: null, wasmMs: 30 })).toMatchObject({ order: ["wasm", "cpu"], reason: expect.stringMatching(/slower than wasm \(30\.0 ms\)/) });
  });

  it("a forced backend is tried first whatever the adapter", () => {
    expect(decideBackend("webgpu", gpu(SWIFTSHADER))).toEqual({ kind: "order", order: ["webgpu", "wasm", "cpu"], reason: "webgpu, forced by the backend setting", adapter: "google swiftshader" });
    expect(decideBackend("wasm", gpu(NVIDIA))).toMatchObject({ order: ["wasm", "cpu"] });
    expect(decideBackend("cpu", gpu(NVIDIA))).toMatchObject({ order: ["cpu"] });
  });
});

describe("chooseBackendOrder", () => {
  function fakeEnv(report: AdapterReport, probe: () => Promise<{ webgpuMs: number | null; wasmMs: number }>) {
    const calls = { adapter: 0, probe: 0 };
    return {
      calls,
      env: {
        adapter: async () => (calls.adapter++, report),
        probe: async () => (calls.probe++, probe()),
      },
    };
  }

  it("probes only where the adapter does not decide", async () => {
    const soft = fakeEnv({ info: SWIFTSHADER }, async () => ({ webgpuMs: 1, wasmMs: 2 }));
    expect((await chooseBackendOrder("auto", soft.env)).order[0]).toBe("wasm");
    expect(soft.calls).toEqual({ adapter: 1, probe: 0 });

    const real = fakeEnv({ info: NVIDIA }, async () => ({ webgpuMs: 1, wasmMs: 2 }));
    expect((await chooseBackendOrder("auto", real.env)).order[0]).toBe("webgpu");
    expect(real.calls).toEqual({ adapter: 1, probe: 1 });

    const wasm = fakeEnv({ info: NVIDIA }, async () => ({ webgpuMs: 1, wasmMs: 2 }));
    await chooseBackendOrder("wasm", wasm.env);
    expect(wasm.calls).toEqual({ adapter: 0, probe: 0 });
  });

  it("a probe that throws means wasm, with the error", async () => {
    const broken = fakeEnv({ info: NVIDIA }, async () => {
      throw new Error("device lost");
    });
    expect(await chooseBackendOrder("auto", broken.env)).toMatchObject({ order: ["wasm", "cpu"], reason: "wasm, because the WebGPU probe failed: device lost" });
  });
});

describe("chooseBackend (Node: no webgpu backend registered)", () => {
  it("a decided webgpu that cannot start falls back to wasm and says both", async () => {
    const env = { adapter: async (): Promise<AdapterReport> => ({ info: NVIDIA }), probe: async () => ({ webgpuMs: 1, wasmMs: 2 }) };
    const choice = await chooseBackend("auto", env);
    expect(choice.backend).toBe("wasm");
    expect(tf.getBackend()).toBe("wasm");
    expect(choice.adapter).toBeNull();
    expect(choice.reason).toMatch(/^wasm, because webgpu is unavailable: .* \(decided first: webgpu, because it ran the probe in 1\.0 ms, wasm in 2\.0 ms\)$/);
  });

  it("auto in Node (no navigator.gpu) is wasm without a probe", async () => {
    const choice = await chooseBackend("auto");
    expect(choice).toMatchObject({ backend: "wasm", reason: expect.stringMatching(/^wasm, because webgpu is unavailable: navigator\.gpu is missing/) });
  });
});

describe("requestAdapterReport", () => {
  // GPUAdapterInfo's fields are prototype getters, as in the browser.
  class Info {
    get vendor() {
      return "google";
    }
    get architecture() {
      return "swiftshader";
    }
    get isFallbackAdapter() {
      return false;
    }
  }

  it("asks with tfjs's options and copies the getter fields", async () => {
    const seen: unknown[] = [];
    const gpu = { requestAdapter: async (o?: object) => (seen.push(o), { info: new Info() }) };
    const report = await requestAdapterReport(gpu, { powerPreference: "high-performance" });
    expect(seen).toEqual([{ powerPreference: "high-performance" }]);
    expect(report).toEqual({ info: { vendor: "google", architecture: "swiftshader", device: undefined, description: undefined, isFallbackAdapter: false } });
  });

  it("reads the older adapter-level isFallbackAdapter, and reports no adapter or a failure in words", async () => {
    const legacy = await requestAdapterReport({ requestAdapter: async () => ({ info: { description: "Some GPU" }, isFallbackAdapter: true }) }, { powerPreference: "high-performance" });
    expect("info" in legacy && legacy.info.isFallbackAdapter).toBe(true);
    expect(await requestAdapterReport({ requestAdapter: async () => null }, { powerPreference: "low-power" })).toEqual({ unavailable: expect.stringMatching(/returned no adapter/) });
    expect(await requestAdapterReport({ requestAdapter: async () => Promise.reject(new Error("blocked")) }, { powerPreference: "low-power" })).toEqual({ unavailable: expect.stringMatching(/failed: blocked/) });
    expect(await requestAdapterReport(undefined, { powerPreference: "low-power" })).toEqual({ unavailable: expect.stringMatching(/navigator\.gpu is missing/) });
  });
});

describe("timeProbe", () => {
  it("times the probe on the current backend and gives up past its limit", async () => {
    await tf.setBackend("wasm");
    const before = tf.memory().numTensors;
    const ms = await timeProbe();
    expect(ms).toBeGreaterThan(0);
    expect(await timeProbe(0)).toBeNull();
    expect(tf.memory().numTensors).toBe(before);
  });
});
