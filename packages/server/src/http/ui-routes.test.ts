import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { sendHttpError, HttpError } from "./http-error.js";
import { isUiFileRequest, registerUiRoutes } from "./ui-routes.js";

const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

function app(folder: string) {
  const server = Fastify();
  server.setErrorHandler((error, _request, reply) =>
    error instanceof HttpError ? sendHttpError(reply, error) : reply.code(500).send(),
  );
  registerUiRoutes(server, { folder });
  return server;
}

describe("the report page's routes", () => {
  it("serves the built files with their types and a policy that loads nothing from elsewhere", async () => {
    const folder = mkdtempSync(join(tmpdir(), "ui-routes-"));
    folders.push(folder);
    writeFileSync(join(folder, "index.html"), "<!doctype html><title>t</title>");
    writeFileSync(join(folder, "app.js"), "console.log(1)");
    writeFileSync(join(folder, "app.css"), "body{}");
    const server = app(folder);
    const redirect = await server.inject("/ui");
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe("/ui/");
    const html = await server.inject("/ui/");
    expect(html.statusCode).toBe(200);
    expect(html.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(html.headers["cache-control"]).toBe("no-cache");
    expect(html.body).toBe("<!doctype html><title>t</title>");
    const policy = String(html.headers["content-security-policy"]);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toMatch(/https?:/);
    expect((await server.inject("/ui/app.js")).headers["content-type"]).toBe(
      "text/javascript; charset=utf-8",
    );
    expect((await server.inject("/ui/app.css")).body).toBe("body{}");
    expect((await server.inject("/ui/other.js")).statusCode).toBe(404);
    await server.close();
  });

  it("says how to build the page when it is not built", async () => {
    const folder = mkdtempSync(join(tmpdir(), "ui-routes-empty-"));
    folders.push(folder);
    const server = app(folder);
    const answer = await server.inject("/ui/");
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual({
      error: {
        code: "not_found",
        message:
          "the report page is not built into this gateway (pnpm --filter @cursor/server build writes dist/ui)",
      },
    });
    await server.close();
  });

  it("lets only the page's own files through without a token", () => {
    for (const url of ["/ui", "/ui/", "/ui/?x=1", "/ui/app.js", "/ui/app.css"]) {
      expect(isUiFileRequest(url), url).toBe(true);
    }
    for (const url of [
      "/ui/../v1/usage",
      "/ui/app.js/../../v1/usage",
      "/uix",
      "/v1/usage",
      "/ui/index.html",
      "/UI/",
    ]) {
      expect(isUiFileRequest(url), url).toBe(false);
    }
  });
});
