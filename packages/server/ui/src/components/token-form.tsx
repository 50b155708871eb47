import { useState } from "preact/hooks";
import { saveToken } from "../token-store.js";

/** Asked when the gateway answers 401: the bearer token the API calls carry from now on. */
export function TokenForm({ onSaved }: { onSaved: () => void }) {
  const [token, setToken] = useState("");
  return (
    <form
      class="panel token"
      onSubmit={(event) => {
        event.preventDefault();
        if (token.trim().length === 0) return;
        saveToken(token.trim());
        onSaved();
      }}
    >
      <h2>This gateway wants a bearer token</h2>
      <p>
        Enter one of the gateway's tokens (<code>CURSOR_GATEWAY_TOKENS</code>). The page sends it
        only in the <code>Authorization</code> header of its own requests and keeps it for this tab.
      </p>
      <label>
        Bearer token{" "}
        <input
          type="password"
          autoComplete="off"
          value={token}
          onInput={(event) => setToken((event.currentTarget as HTMLInputElement).value)}
        />
      </label>{" "}
      <button type="submit">Use this token</button>
    </form>
  );
}
