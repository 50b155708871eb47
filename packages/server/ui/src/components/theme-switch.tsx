import { useState } from "preact/hooks";
import { applyTheme, storedTheme } from "../theme.js";
import type { ThemeChoice } from "../theme.js";

const choices: readonly { value: ThemeChoice; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

export function ThemeSwitch() {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  return (
    <label class="theme">
      Theme{" "}
      <select
        value={choice}
        onChange={(event) => {
          const value = (event.currentTarget as HTMLSelectElement).value as ThemeChoice;
          applyTheme(value);
          setChoice(value);
        }}
      >
        {choices.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
