import { render } from "preact";
import { App } from "./components/app.js";
import { applyStoredTheme } from "./theme.js";

applyStoredTheme();
const root = document.getElementById("app");
if (root !== null) {
  root.textContent = "";
  render(<App />, root);
}
