import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";
import { HttpError } from "./http-error.js";

/** The report page's files, as `tsup --config tsup.ui.config.ts` writes them under dist/ui. */
const pageFiles = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
} as const;

type PageFile = keyof typeof pageFiles;

/**
 * Everything the page loads comes from this gateway; its data only from the API's own origin.
 * The policy also makes the "no CDN" rule hold at run time: a request elsewhere is blocked.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Where the built page is: dist/ui next to the bundled gateway (dist/*.js), or, when the gateway
 * runs from its sources (tests), the package's dist/ui.
 */
function defaultUiFolder(): string | undefined {
  for (const candidate of ["./ui/", "../../dist/ui/"]) {
    const folder = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${folder}index.html`)) return folder;
  }
  return undefined;
}

/**
 * `GET /ui`: the cache report page. Its three files hold no data (the HTML shell, the bundled
 * script and the stylesheet), so they are served without a token: a browser cannot send a
 * bearer header when it navigates. Every figure the page shows comes from the usage API, which
 * the page calls with the same bearer token as any client (asked for on a 401, kept for the tab);
 * a gateway without tokens (loopback only) asks for none.
 */
export function registerUiRoutes(
  app: FastifyInstance,
  { folder = defaultUiFolder() }: { folder?: string } = {},
): void {
  // Read once: the files are small and never change while the gateway runs.
  const files = new Map<PageFile, Buffer>();
  if (folder !== undefined) {
    for (const name of Object.keys(pageFiles) as PageFile[]) {
      const path = `${folder.endsWith("/") ? folder : `${folder}/`}${name}`;
      if (existsSync(path)) files.set(name, readFileSync(path));
    }
  }
  const send = (name: PageFile) => async (_request: unknown, reply: FastifyReply) => {
    const body = files.get(name);
    if (body === undefined) {
      throw new HttpError(
        "not_found",
        "the report page is not built into this gateway (pnpm --filter @cursor/server build writes dist/ui)",
      );
    }
    return reply
      .type(pageFiles[name])
      .header("cache-control", name === "index.html" ? "no-cache" : "public, max-age=300")
      .header("content-security-policy", contentSecurityPolicy)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .send(body);
  };
  app.get("/ui", async (_request, reply) => reply.redirect("/ui/", 302));
  app.get("/ui/", send("index.html"));
  app.get("/ui/app.js", send("app.js"));
  app.get("/ui/app.css", send("app.css"));
}

/** Requests for the page's own files, which need no token (see `registerUiRoutes`). */
export function isUiFileRequest(url: string): boolean {
  const path = url.split("?", 1)[0];
  return path === "/ui" || path === "/ui/" || path === "/ui/app.js" || path === "/ui/app.css";
}
