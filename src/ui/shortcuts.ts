/**
 * Keyboard shortcuts, documented in one list that the help dialog renders. Keys act only when
 * focus is not in a text field, so typing in Play or Settings never triggers them.
 */

export interface Shortcut {
  key: string;
  description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { key: "1", description: "Dashboard" },
  { key: "2", description: "Duel" },
  { key: "3", description: "Mistake Book" },
  { key: "4", description: "Compare" },
  { key: "5", description: "Play" },
  { key: "6", description: "Settings and sharing" },
  { key: "p", description: "Pause or resume the run" },
  { key: "n", description: "Run a single step (when paused)" },
  { key: "[", description: "Duel: previous recorded step" },
  { key: "]", description: "Duel: next recorded step" },
  { key: "t", description: "Switch light / dark theme" },
  { key: "l", description: "Large type (projector)" },
  { key: "?", description: "Show these shortcuts" },
];

/** Whether a key event comes from a place where typing is expected. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || !(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** Install handlers; returns the uninstaller. */
export function installShortcuts(handlers: Partial<Record<string, () => void>>, target: Document = document): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return;
    const handler = handlers[e.key];
    if (handler) {
      e.preventDefault();
      handler();
    }
  };
  target.addEventListener("keydown", onKey);
  return () => target.removeEventListener("keydown", onKey);
}
