import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses, startGatewayProcess } from "./gateway-process.js";
import { anyValue, matchesExample, readmeRequests } from "./readme-examples.js";
import type { ReadmeRequest } from "./readme-examples.js";
import { eventNames, streamRun } from "./sse-run.js";

// The walk-throughs of the two READMEs, sent as written to the built `cursor-gateway serve` on
// the offline `simulated` provider: every event a README lists must arrive, with the data it
// shows, in that order.
const readmes = {
  root: fileURLToPath(new URL("../../../../README.md", import.meta.url)),
  server: fileURLToPath(new URL("../../README.md", import.meta.url)),
};
const folders = temporaryFolders("readme");

afterAll(async () => {
  await killAllGatewayProcesses();
  folders.removeAll();
});

/** The README's URL on the test's gateway (the README assumes the default 127.0.0.1:8787). */
const onGateway = (url: string, gateway: string) =>
  url.replace(/^http:\/\/127\.0\.0\.1:8787/, gateway);

const describeExpected = (request: ReadmeRequest) =>
  request.events.map(
    (event) =>
      `${event.event} ${JSON.stringify(event.data, (_key, value: unknown) => (value === anyValue ? "…" : value))}`,
  );

/** Sends each README request in order; checks what the README says each answers. */
async function walkThrough(readme: string) {
  const requests = readmeRequests(readme);
  const gateway = await startGatewayProcess({
    CURSOR_GATEWAY_PROVIDER: "simulated",
    CURSOR_GATEWAY_DATA_DIR: folders.create(),
  });
  const answers: { request: ReadmeRequest; events: { event: string; data: unknown }[] }[] = [];
  try {
    for (const request of requests) {
      const url = onGateway(request.url, gateway.url);
      if (request.body !== undefined) {
        const base = new URL(url);
        expect(base.pathname).toBe("/v1/runs");
        const result = await streamRun(base.origin, request.body);
        expect(result.status, `README line ${request.line}`).toBe(200);
        answers.push({ request, events: [...result.events] });
        // Every listed event, in order (a README may leave some out, never reorder them).
        let from = 0;
        for (const expected of request.events) {
          const found = result.events.findIndex(
            (event, index) =>
              index >= from &&
              event.event === expected.event &&
              matchesExample(expected.data, event.data),
          );
          expect(
            found,
            `README line ${request.line}: expected ${describeExpected(request).join(" | ")}, got ${JSON.stringify(result.events)}`,
          ).toBeGreaterThanOrEqual(0);
          from = found + 1;
        }
      } else {
        const client = createGatewayClient({ baseURL: new URL(url).origin });
        const path = new URL(url).pathname;
        const answer = request.method === "POST" ? await client.post(path) : await client.get(path);
        expect(answer.status, `README line ${request.line}`).toBe(200);
        if (request.json !== undefined)
          expect(matchesExample(request.json, answer.body)).toBe(true);
      }
    }
  } finally {
    expect(await gateway.stop()).toEqual({ code: 0, signal: null });
  }
  return answers;
}

describe("README walk-throughs against the simulated provider", () => {
  it("packages/server/README.md: a turn, its tool call, the tool results, a cancel", async () => {
    const answers = await walkThrough(readmes.server);
    expect(answers).toHaveLength(2);
    // The server README lists every event of both runs.
    for (const { request, events } of answers) {
      expect(eventNames(events)).toEqual(request.events.map((event) => event.event));
    }
    const [turn, continuation] = answers;
    const usage = (events: { event: string; data: unknown }[]) =>
      events.find((event) => event.event === "usage")!.data as {
        inputTokens: number;
        cachedInputTokens: number;
      };
    // The continuation appended to what the provider had seen: its cache read is all of the
    // first call's input the cache can hold (OpenAI granularity: 1024 + 128·k tokens).
    const first = usage(turn!.events).inputTokens;
    expect(usage(continuation!.events).cachedInputTokens).toBe(
      1024 + 128 * Math.floor((first - 1024) / 128),
    );
  });

  it("README.md: the user turn ends awaiting the grep it asks for", async () => {
    const answers = await walkThrough(readmes.root);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.events.at(-1)).toEqual({
      event: "run.ended",
      data: { reason: "awaiting-tools" },
    });
  });
});
