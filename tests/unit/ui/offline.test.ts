import { describe, expect, it, vi, type Mock } from "vitest";
import { ISOLATION_PROBLEMS, RELOAD_MARK, registerOffline, type OfflineEnv } from "../../../src/ui/offline.ts";

/** sessionStorage in memory; `refuse` makes writes throw, as a full or disabled storage does. */
function memoryStorage(refuse = false): Storage & { mem: Map<string, string> } {
  const mem = new Map<string, string>();
  return {
    mem,
    getItem: (k: string) => mem.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (refuse) throw new DOMException("quota", "QuotaExceededError");
      mem.set(k, v);
    },
    removeItem: (k: string) => void mem.delete(k),
  } as unknown as Storage & { mem: Map<string, string> };
}

/** A service worker that installs, then activates on the next tick. */
function installingWorker() {
  const listeners: (() => void)[] = [];
  const worker = {
    state: "installing" as ServiceWorkerState,
    addEventListener: (_: string, f: () => void) => listeners.push(f),
    postMessage: vi.fn(),
  };
  setTimeout(() => {
    worker.state = "activated";
    listeners.forEach((f) => f());
  }, 5);
  return worker;
}

function env(opts: { isolated: boolean; serviceWorker?: "none" | "installs" | "fails" | "controlled"; session?: Storage | null }): OfflineEnv & { reload: Mock<() => void>; register: Mock } {
  const register = vi.fn(async () => {
    if (opts.serviceWorker === "fails") throw new DOMException("The operation is insecure.", "SecurityError");
    return opts.serviceWorker === "controlled" ? { installing: null, waiting: null, active: { postMessage: vi.fn() } } : { installing: installingWorker(), waiting: null, active: null };
  });
  const container = {
    register,
    controller: opts.serviceWorker === "controlled" ? {} : null,
    ready: Promise.resolve({ active: { postMessage: vi.fn() } }),
    addEventListener: vi.fn(),
  };
  const nav = (opts.serviceWorker ?? "none") === "none" ? {} : { serviceWorker: container };
  return {
    nav: nav as unknown as Navigator,
    page: { origin: "http://127.0.0.1:8000", pathname: "/" },
    perf: { getEntriesByType: () => [] } as unknown as Performance,
    isolated: opts.isolated,
    session: opts.session === undefined ? memoryStorage() : opts.session,
    reload: vi.fn<() => void>(),
    register,
  };
}

/** Whether `p` settles within a few ticks (a reloading page's promise never does). */
async function settles<T>(p: Promise<T>): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 50))]);
}

describe("cross-origin isolation from the service worker", () => {
  it("an isolated page (the server sent the headers) never reloads, and clears a leftover reload mark", async () => {
    const session = memoryStorage();
    session.setItem(RELOAD_MARK, "1");
    const e = env({ isolated: true, serviceWorker: "controlled", session });
    expect(await registerOffline(e)).toEqual({ isolated: true, problem: null });
    expect(e.reload).not.toHaveBeenCalled();
    expect(session.mem.has(RELOAD_MARK)).toBe(false);
    expect(e.register).toHaveBeenCalledWith("/sw.js"); // still cached for offline use
  });

  it("an isolated page without service workers just goes on", async () => {
    const e = env({ isolated: true, serviceWorker: "none" });
    expect(await registerOffline(e)).toEqual({ isolated: true, problem: null });
  });

  it("a first visit to a static host registers, waits for activation, marks and reloads once, and never lets workers start", async () => {
    const session = memoryStorage();
    const e = env({ isolated: false, serviceWorker: "installs", session });
    const result = registerOffline(e);
    expect(await settles(result)).toBe(false);
    expect(e.register).toHaveBeenCalledWith("/sw.js");
    expect(e.reload).toHaveBeenCalledTimes(1);
    expect(session.mem.get(RELOAD_MARK)).toBe("1");
  });

  it("still not isolated after that reload: no second reload, a message instead, and the mark is cleared", async () => {
    const session = memoryStorage();
    session.setItem(RELOAD_MARK, "1");
    const e = env({ isolated: false, serviceWorker: "controlled", session });
    expect(await registerOffline(e)).toEqual({ isolated: false, problem: ISOLATION_PROBLEMS.stillNotIsolated });
    expect(e.reload).not.toHaveBeenCalled();
    expect(session.mem.has(RELOAD_MARK)).toBe(false);
  });

  it("no service workers (private mode): a clear message, no reload", async () => {
    const e = env({ isolated: false, serviceWorker: "none" });
    const r = await registerOffline(e);
    expect(r).toEqual({ isolated: false, problem: ISOLATION_PROBLEMS.noServiceWorker });
    expect(r.problem).toMatch(/private browsing/);
    expect(e.reload).not.toHaveBeenCalled();
  });

  it("a registration that fails is named in the message, no reload", async () => {
    const e = env({ isolated: false, serviceWorker: "fails" });
    const r = await registerOffline(e);
    expect(r.problem).toBe(ISOLATION_PROBLEMS.registrationFailed("The operation is insecure."));
    expect(e.reload).not.toHaveBeenCalled();
  });

  it("without a session storage that keeps the mark, it does not reload (a reload could loop)", async () => {
    for (const session of [null, memoryStorage(true)]) {
      const e = env({ isolated: false, serviceWorker: "installs", session });
      expect(await registerOffline(e)).toEqual({ isolated: false, problem: ISOLATION_PROBLEMS.noSessionStorage });
      expect(e.reload).not.toHaveBeenCalled();
    }
  });
});
