// The bearer token the page sends with its API calls. Kept in sessionStorage: it lives as long as
// the tab, is never written to the URL (no token in history, logs or Referer headers) and is sent
// only as an Authorization header by the page's own fetch calls.
const key = "cursor-gateway.token";

function readToken(): string | undefined {
  try {
    return sessionStorage.getItem(key) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveToken(token: string): void {
  try {
    sessionStorage.setItem(key, token);
  } catch {
    // Storage disabled: the token lasts until the page is reloaded.
  }
  memory = token;
}

let memory: string | undefined;

/** The token to send: the stored one, else one entered while storage is disabled. */
export function currentToken(): string | undefined {
  return readToken() ?? memory;
}
