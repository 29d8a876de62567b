/**
 * Display preferences (theme, large type, first visit seen), kept in localStorage: tiny, local to
 * the device, and applied before the first paint by main.ts to avoid a flash of the wrong theme.
 */

export type Theme = "auto" | "light" | "dark";

export interface Prefs {
  theme: Theme;
  largeType: boolean;
  /** The first-visit introduction was dismissed or a run was started. */
  welcomed: boolean;
}

const KEY = "code-a1-arena:prefs";
export const DEFAULT_PREFS: Prefs = { theme: "auto", largeType: false, welcomed: false };

export function loadPrefs(storage: Pick<Storage, "getItem"> | null): Prefs {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw) return { ...DEFAULT_PREFS };
    const p = JSON.parse(raw) as Partial<Prefs>;
    return {
      theme: p.theme === "light" || p.theme === "dark" ? p.theme : "auto",
      largeType: p.largeType === true,
      welcomed: p.welcomed === true,
    };
  } catch {
    return { ...DEFAULT_PREFS }; // unreadable prefs are not worth an error
  }
}

export function savePrefs(storage: Pick<Storage, "setItem"> | null, prefs: Prefs): void {
  try {
    storage?.setItem(KEY, JSON.stringify(prefs));
  } catch {
    // Private mode or full storage: preferences just do not persist.
  }
}

/** The theme in effect: "auto" follows prefers-color-scheme. */
export function effectiveTheme(theme: Theme, prefersDark: boolean): "light" | "dark" {
  return theme === "auto" ? (prefersDark ? "dark" : "light") : theme;
}

/** The toggle's next theme: flips the one in effect. */
export function toggledTheme(theme: Theme, prefersDark: boolean): Theme {
  return effectiveTheme(theme, prefersDark) === "dark" ? "light" : "dark";
}

export function applyPrefs(root: HTMLElement, prefs: Prefs, prefersDark: boolean): void {
  root.dataset.theme = effectiveTheme(prefs.theme, prefersDark);
  root.classList.toggle("large-type", prefs.largeType);
}
