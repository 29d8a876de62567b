/**
 * The service worker (workers/service-worker.ts, served as /sw.js): cross-origin isolation from the
 * app itself, and offline after the first visit.
 *
 * Isolation and CSP. The page is cross-origin isolated (SharedArrayBuffer, for threaded wasm) and the
 * grader's workers must carry their Content-Security-Policy (they refuse to start without it). Vite's
 * servers send the headers; a plain static host does not, and then the service worker adds them.
 * It only sees the loads that happen after it controls the page, so a first visit registers it,
 * waits until it is active, and reloads once (the coi-serviceworker pattern). A mark in
 * sessionStorage allows one such reload per load the user makes: if the page is still not
 * isolated after it, the app says why instead of reloading again.
 *
 * Offline. The page tells the service worker which same-origin URLs the first load already
 * fetched, and workers (trainer, policies, grader) start only once the page is controlled (or a
 * short wait passed), so that their scripts, wasm and Pyodide files are cached as they load.
 */

const CONTROL_WAIT_MS = 3000;
/** How long a first visit waits for the service worker to activate before reloading anyway. */
const ACTIVATE_WAIT_MS = 10_000;
export const RELOAD_MARK = "code-a1-isolation-reload";

const WHY = "so the grader cannot start (Play and training need it)";
const FIX = "or serve the app with the headers listed in the README under Deploy";
export const ISOLATION_PROBLEMS = {
  noServiceWorker: `This page is not cross-origin isolated, and service workers are unavailable here (private browsing, or disabled by a setting), ${WHY}. Open the app in a normal window, ${FIX}.`,
  noSessionStorage: `This page is not cross-origin isolated, and without session storage it cannot reload itself safely under the app's service worker, ${WHY}. Reload the page once by hand, ${FIX}.`,
  stillNotIsolated: `This page is still not cross-origin isolated after reloading under the app's service worker, ${WHY}. Reload once more; if this stays, ${FIX}.`,
  registrationFailed: (reason: string) => `This page is not cross-origin isolated, and the app's service worker could not start (${reason}), ${WHY}. Reload the page, ${FIX}.`,
};

export interface OfflineEnv {
  nav: Navigator;
  page: { origin: string; pathname: string };
  perf: Performance;
  /** self.crossOriginIsolated of this page load. */
  isolated: boolean;
  /** sessionStorage, or null where it is disabled: holds the reload mark. */
  session: Storage | null;
  reload: () => void;
}

/** Whether workers may start, and if the page is not isolated, why and what to do. */
export interface IsolationState {
  isolated: boolean;
  problem: string | null;
}

/**
 * Register the service worker. Resolves once workers may start: at once (no support), when the
 * page is controlled, or after a short wait. When the page must reload to become isolated, it
 * reloads and never resolves, so that no worker starts in a page about to go away.
 */
export async function registerOffline(env: OfflineEnv): Promise<IsolationState> {
  const sw = "serviceWorker" in env.nav ? env.nav.serviceWorker : undefined;
  const reloadedOnce = readMark(env.session);
  if (env.isolated) {
    if (reloadedOnce) writeMark(env.session, false);
    if (sw) await registerForOffline(sw, env);
    return { isolated: true, problem: null };
  }
  if (!sw) return { isolated: false, problem: ISOLATION_PROBLEMS.noServiceWorker };
  if (reloadedOnce) {
    // This load is the one reload: give up and say so (the next load the user makes may try again).
    writeMark(env.session, false);
    return { isolated: false, problem: ISOLATION_PROBLEMS.stillNotIsolated };
  }
  try {
    const reg = await sw.register("/sw.js");
    await withTimeout(activated(reg), ACTIVATE_WAIT_MS);
  } catch (e) {
    return { isolated: false, problem: ISOLATION_PROBLEMS.registrationFailed((e as Error).message) };
  }
  // Without a mark that sticks, a reload could loop: no reload then.
  if (!writeMark(env.session, true) || !readMark(env.session)) return { isolated: false, problem: ISOLATION_PROBLEMS.noSessionStorage };
  env.reload();
  return new Promise<IsolationState>(() => {});
}

/** The offline cache for an isolated page: as before isolation came from the worker. */
function registerForOffline(sw: ServiceWorkerContainer, env: OfflineEnv): Promise<void> {
  const controlled = new Promise<void>((resolve) => {
    if (sw.controller) return resolve();
    sw.addEventListener("controllerchange", () => resolve(), { once: true });
    setTimeout(resolve, CONTROL_WAIT_MS); // never hold the app back for offline support
  });
  sw.register("/sw.js")
    .then(() => sw.ready)
    .then(async (reg) => {
      await controlled;
      const loaded = env.perf.getEntriesByType("resource").map((e) => e.name).filter((u) => new URL(u).origin === env.page.origin);
      reg.active?.postMessage({ type: "cache-urls", urls: [env.page.pathname, ...loaded] });
    })
    .catch((e) => console.warn(`offline support unavailable: ${(e as Error).message}`));
  return controlled;
}

/**
 * Resolves once the registration's newest worker is active (with clients.claim() in its activate
 * handler, it then controls this page), so that the reload is served by it and not by an older one.
 */
function activated(reg: ServiceWorkerRegistration): Promise<void> {
  const pending = reg.installing ?? reg.waiting;
  if (!pending) return reg.active ? Promise.resolve() : Promise.reject(new Error("registered, but no worker is installing or active"));
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pending.state === "activated") resolve();
      else if (pending.state === "redundant") reject(new Error("the new service worker failed to install"));
    };
    pending.addEventListener("statechange", check);
    check();
  });
}

/** Past `ms`, go on anyway: a reload under a worker that is still activating is mostly fine. */
function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  return Promise.race([p, new Promise<void>((resolve) => setTimeout(resolve, ms))]);
}

function readMark(session: Storage | null): boolean {
  try {
    return session?.getItem(RELOAD_MARK) === "1";
  } catch {
    return false;
  }
}

/** Whether the mark could be written. */
function writeMark(session: Storage | null, on: boolean): boolean {
  if (!session) return false;
  try {
    if (on) session.setItem(RELOAD_MARK, "1");
    else session.removeItem(RELOAD_MARK);
    return true;
  } catch {
    return false;
  }
}
