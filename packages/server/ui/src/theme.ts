// Light, dark, or the system's choice (the default). The choice is the page's only setting kept
// in localStorage; the stylesheet follows `prefers-color-scheme` unless `data-theme` is set.
export type ThemeChoice = "system" | "light" | "dark";

const key = "cursor-gateway.theme";

export function storedTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(key);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

export function applyTheme(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", choice);
  try {
    if (choice === "system") localStorage.removeItem(key);
    else localStorage.setItem(key, choice);
  } catch {
    // Storage disabled: the choice lasts until the page is reloaded.
  }
}

export function applyStoredTheme(): void {
  applyTheme(storedTheme());
}
