import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateAgentSession } from "@cursor/testkit";
import type { RunRequestBody, SessionRequestContext } from "@cursor/testkit";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import type { RunningGateway } from "../start-gateway.js";
import type {
  CallView,
  CallsPage,
  ConversationsPage,
  DivergenceResponse,
  UsageSummaryView,
} from "../usage/usage-api.js";
import { temporaryFolders } from "./e2e-environment.js";
import { chromiumPath, chromiumSkipReason, launchChromium } from "./headless-chromium.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { startScriptedProvider } from "./scripted-provider.js";
import { runEnded, streamRun } from "./sse-run.js";

const folders = temporaryFolders("report-page");
afterAll(() => folders.removeAll());

const token = "report-page-token-0123456789";
const conversationId = "report-session-5";

/**
 * The figures as the page must print them, written out here independently of the page's code:
 * a page that computes or formats a figure wrongly fails these tests.
 */
const expected = {
  integer: (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 0 }),
  percent: (value: number | null) => (value === null ? "–" : `${(100 * value).toFixed(1)}%`),
  usd(value: number | null | undefined): string {
    if (value === null || value === undefined) return "–";
    const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 2 : 4;
    return `${value < 0 ? "−" : ""}$${Math.abs(value).toFixed(digits)}`;
  },
};

/** An MCP tool the session never had: adding it to one turn's context breaks the prefix there. */
function withExtraTool(context: SessionRequestContext): SessionRequestContext {
  return {
    ...context,
    mcp: {
      servers: [
        ...context.mcp.servers,
        {
          name: "metrics",
          instructions: "Query the metrics store.",
          tools: [
            {
              name: "query_metrics",
              description: "Runs a PromQL query.",
              inputSchema: { type: "object", properties: { promql: { type: "string" } } },
            },
          ],
        },
      ],
    },
  };
}

/** WCAG contrast ratio of two `rgb(…)` colours. */
function contrast(foreground: string, background: string): number {
  const luminance = (css: string) => {
    const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const channel = Number(part) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
  return (light! + 0.05) / (dark! + 0.05);
}

async function textOf(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).textContent()) ?? "").trim();
}

/** PNG width from its IHDR chunk. */
const pngWidth = (png: Buffer) => png.readUInt32BE(16);

const screenshotFolder = fileURLToPath(new URL("../../../../docs/screenshots/", import.meta.url));

describe.skipIf(chromiumPath === undefined)(
  `the report page in headless Chromium${chromiumPath === undefined ? ` [skipped: ${chromiumSkipReason}]` : ""}`,
  () => {
    it(
      "lists the conversation, charts each call's cached share and input size with the compaction and the restart marked, and opens the prefix doctor's view of the injected break",
      { timeout: 180_000 },
      async () => {
        const provider = await startScriptedProvider();
        const dataDir = folders.create();
        const start = () =>
          startInProcessGateway({
            provider,
            dataDir,
            extra: { CURSOR_GATEWAY_TOKENS: token },
          });
        let gateway: RunningGateway = await start();
        const browser = await launchChromium();
        try {
          // 1. A generated agent session (tool rounds, context changes, a restart, a manual
          //    compaction), with one MCP tool added to the third user turn's context.
          const session = generateAgentSession({
            seed: 5,
            turns: 8,
            conversationId,
            features: { images: false, background: false, injections: false, retries: false },
          });
          expect(session.stats.compactions).toBe(1);
          expect(session.stats.restarts).toBe(1);
          expect(session.stats.contextChanges).toBeGreaterThan(0);
          let latestContext: SessionRequestContext | undefined;
          let userTurns = 0;
          for (const event of session.events) {
            if (event.type === "restart") {
              await gateway.close();
              gateway = await start();
              continue;
            }
            let body: RunRequestBody = event.body;
            latestContext = body.requestContext ?? latestContext;
            if (event.type === "user-turn" && ++userTurns === 3) {
              body = { ...body, requestContext: withExtraTool(latestContext!) };
            }
            provider.fake.enqueue(...event.replies);
            const result = await streamRun(gateway.url, body, { token });
            expect(result.status, `event ${event.index}`).toBe(200);
            expect(runEnded(result.events).reason, `event ${event.index}`).toBe(event.expectedEnd);
          }

          // 2. What the API says: the figures the page must show.
          const client = createGatewayClient({ baseURL: gateway.url, token });
          const summary = (await client.get("/v1/usage")).body as UsageSummaryView;
          const listed = (await client.get("/v1/usage/conversations")).body as ConversationsPage;
          const calls = (
            (await client.get(`/v1/conversations/${conversationId}/calls?limit=1000`))
              .body as CallsPage
          ).calls as CallView[];
          expect(calls).toHaveLength(provider.fake.requests.length);
          const broken = calls.find((call) => call.prefix.status === "broke");
          expect(broken?.prefix.divergenceView).toBe(true);
          expect(broken?.prefix.divergence?.causeKind).toBe("tools");
          const divergence = (
            await client.get(
              `/v1/conversations/${conversationId}/calls/${broken!.callId}/divergence`,
            )
          ).body as DivergenceResponse;
          const view = divergence.view!;
          expect(view.diff.diff.join("\n")).toContain("query_metrics");
          const restartsBefore = calls.flatMap((call, index) =>
            index > 0 && call.process.id !== calls[index - 1]!.process.id ? [call.callId] : [],
          );
          const compactionsBefore = calls.flatMap((call, index) =>
            index > 0 && call.epoch !== calls[index - 1]!.epoch ? [call.callId] : [],
          );
          expect(restartsBefore).toHaveLength(1);
          expect(compactionsBefore).toHaveLength(1);
          expect(calls.filter((call) => call.kind === "summarizer")).toHaveLength(1);

          // 3. The page, from the gateway only: nothing is fetched from anywhere else.
          const context = await browser.newContext({
            viewport: { width: 1280, height: 900 },
            colorScheme: "light",
            locale: "en-US",
            timezoneId: "UTC",
          });
          const page = await context.newPage();
          const requested: string[] = [];
          page.on("request", (request) => requested.push(request.url()));
          const pageErrors: string[] = [];
          page.on("pageerror", (error) => pageErrors.push(error.message));
          const shell = await page.goto(`${gateway.url}/ui`);
          expect(shell?.status()).toBe(200);
          expect(shell?.headers()["content-security-policy"]).toContain("default-src 'none'");

          // The gateway has tokens: the page asks for one before it shows anything.
          const tokenField = page.getByLabel("Bearer token");
          await tokenField.waitFor();
          await tokenField.fill(token);
          await tokenField.press("Enter");

          // The summary and the conversation list show the API's figures.
          await page.locator("[data-testid=summary]").waitFor();
          const figure = (name: string) =>
            textOf(page, `[data-testid=summary] [data-figure=${name}]`);
          expect(await figure("conversations")).toBe(expected.integer(summary.conversations));
          expect(await figure("calls")).toBe(expected.integer(summary.calls));
          expect(await figure("breaks")).toBe(expected.integer(summary.brokenPrefixes));
          expect(await figure("input")).toBe(expected.integer(summary.tokens.inputTokens));
          expect(await figure("cached")).toBe(expected.integer(summary.tokens.cachedInputTokens));
          expect(await figure("cached-ratio")).toBe(expected.percent(summary.cachedRatio));
          expect(await figure("cost")).toBe(expected.usd(summary.cost.usd));
          expect(await figure("saved")).toBe(expected.usd(summary.cost.savedUsd));
          expect(await textOf(page, "main")).toContain(
            `prices as of ${summary.defaultPrices.asOf}`,
          );
          const listedRow = listed.conversations.find(
            (row) => row.conversationId === conversationId,
          )!;
          const row = `[data-testid=conversations] tr[data-conversation-id="${conversationId}"]`;
          expect(await textOf(page, `${row} [data-col=calls]`)).toBe(
            expected.integer(listedRow.calls),
          );
          expect(await textOf(page, `${row} [data-col=input]`)).toBe(
            expected.integer(listedRow.tokens.inputTokens),
          );
          expect(await textOf(page, `${row} [data-col=cached-ratio]`)).toBe(
            expected.percent(listedRow.cachedRatio),
          );
          expect(await textOf(page, `${row} [data-col=cost]`)).toBe(
            expected.usd(listedRow.cost.usd),
          );
          expect(await textOf(page, `${row} [data-col=saved]`)).toBe(
            expected.usd(listedRow.cost.savedUsd),
          );
          expect(await textOf(page, `${row} [data-col=breaks]`)).toBe(
            expected.integer(listedRow.brokenPrefixes),
          );

          // 4. Open the conversation with the keyboard.
          await page.locator(`${row} a`).focus();
          await page.keyboard.press("Enter");
          const chart = page.locator("[data-testid=call-chart]");
          await chart.waitFor();
          const plotTop = Number(await chart.getAttribute("data-plot-top"));
          const plotHeight = Number(await chart.getAttribute("data-plot-height"));
          const inputMax = Number(await chart.getAttribute("data-input-max"));
          const largestInput = Math.max(...calls.map((call) => call.usage?.inputTokens ?? 0));
          expect(inputMax).toBeGreaterThanOrEqual(largestInput);
          expect(inputMax).toBeLessThanOrEqual(largestInput * 2.5);

          // Every call is a point and a bar, in the records' order, at its figures.
          const points = await page.locator("[data-point-call-id]").evaluateAll((nodes) =>
            nodes.map((node) => {
              const shape = node.querySelector("circle, rect, path")!;
              const box = (
                shape as unknown as {
                  getBBox(): { x: number; y: number; width: number; height: number };
                }
              ).getBBox();
              return {
                callId: node.getAttribute("data-point-call-id"),
                status: node.getAttribute("data-status"),
                link: node.tagName.toLowerCase() === "a" ? node.getAttribute("href") : null,
                centreX: box.x + box.width / 2,
                centreY: box.y + box.height / 2,
              };
            }),
          );
          expect(points.map((point) => point.callId)).toEqual(calls.map((call) => call.callId));
          expect(points.map((point) => point.status)).toEqual(
            calls.map((call) => call.prefix.status),
          );
          for (const [index, call] of calls.entries()) {
            const point = points[index]!;
            if (index > 0) expect(point.centreX).toBeGreaterThan(points[index - 1]!.centreX);
            if (call.cachedRatio !== null) {
              // The y of the point is the cached share on the right axis (0 % bottom, 100 % top).
              const share = 1 - (point.centreY - plotTop) / plotHeight;
              expect(share, `call ${index + 1}`).toBeCloseTo(call.cachedRatio, 4);
            }
            expect(point.link).toBe(
              call.prefix.status === "broke" ? `#/c/${conversationId}/call/${call.callId}` : null,
            );
          }
          const bars = await page.locator("[data-bar-call-id]").evaluateAll((nodes) =>
            nodes.map((node) => ({
              callId: node.getAttribute("data-bar-call-id"),
              height: Number(node.getAttribute("height")),
            })),
          );
          expect(bars.map((bar) => bar.callId)).toEqual(calls.map((call) => call.callId));
          for (const [index, call] of calls.entries()) {
            const input = (bars[index]!.height / plotHeight) * inputMax;
            expect(input, `call ${index + 1}`).toBeCloseTo(call.usage?.inputTokens ?? 0, 3);
          }
          // The compaction and the restart are marked before the calls that followed them.
          const marks = await page
            .locator("[data-mark]")
            .evaluateAll((nodes) =>
              nodes.map((node) => [
                node.getAttribute("data-mark"),
                node.getAttribute("data-before-call-id"),
              ]),
            );
          expect(marks.filter(([kind]) => kind === "restart").map(([, id]) => id)).toEqual(
            restartsBefore,
          );
          expect(marks.filter(([kind]) => kind === "compaction").map(([, id]) => id)).toEqual(
            compactionsBefore,
          );

          // The call table prints each call's provider-reported figures and cost.
          for (const call of calls) {
            const cell = (column: string) =>
              textOf(
                page,
                `[data-testid=calls] tr[data-call-id="${call.callId}"] [data-col=${column}]`,
              );
            expect(await cell("input")).toBe(
              call.usage === null ? "–" : expected.integer(call.usage.inputTokens),
            );
            expect(await cell("cached")).toBe(
              call.usage === null ? "–" : expected.integer(call.usage.cachedInputTokens),
            );
            expect(await cell("cache-write")).toBe(
              call.usage === null ? "–" : expected.integer(call.usage.cacheWriteTokens),
            );
            expect(await cell("output")).toBe(
              call.usage === null ? "–" : expected.integer(call.usage.outputTokens),
            );
            expect(await cell("cached-ratio")).toBe(expected.percent(call.cachedRatio));
            expect(await cell("cost")).toBe(expected.usd(call.cost?.usd));
          }
          const conversationCost = calls.reduce((sum, call) => sum + (call.cost?.usd ?? 0), 0);
          expect(await textOf(page, "[data-testid=conversation-figures] [data-figure=cost]")).toBe(
            expected.usd(conversationCost),
          );
          expect(
            await textOf(page, "[data-testid=conversation-figures] [data-figure=breaks]"),
          ).toBe(expected.integer(calls.filter((call) => call.prefix.status === "broke").length));

          // 5. A click on the break opens the prefix doctor's view of the two bodies.
          await page.locator(`a[data-point-call-id="${broken!.callId}"]`).click();
          const panel = page.locator("[data-testid=divergence]");
          await panel.locator("[data-testid=diff]").waitFor();
          expect(await textOf(page, "[data-field=cause-kind]")).toBe(view.diff.cause.kind);
          expect(await textOf(page, "[data-field=cause-summary]")).toBe(view.diff.cause.summary);
          expect(await textOf(page, "[data-testid=first-divergence] [data-field=path]")).toBe(
            view.diff.divergence!.path,
          );
          expect(await textOf(page, "[data-testid=first-divergence] [data-field=reason]")).toBe(
            view.diff.divergence!.reason,
          );
          expect(await textOf(page, "[data-figure=shared-items]")).toBe(
            `${expected.integer(view.diff.sharedHistoryItems)} of ${expected.integer(view.diff.previous.historyItems)}`,
          );
          expect(await textOf(page, "[data-figure=shared-tokens]")).toBe(
            `${expected.integer(view.diff.sharedTokens)} of ${expected.integer(view.diff.previous.tokens)}`,
          );
          const diffLines = await page
            .locator("[data-testid=diff] > span")
            .evaluateAll((nodes) =>
              nodes.map((node) => (node.textContent ?? "").replace(/\n$/, "")),
            );
          expect(diffLines).toEqual(view.diff.diff);
          // The added tool is shown as added (the colour of a `+` line).
          const added = await page
            .locator("[data-testid=diff] > span.added")
            .evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ""));
          expect(added.some((line) => line.includes("mcp__metrics__query_metrics"))).toBe(true);
          expect(added.every((line) => line.startsWith("  +"))).toBe(true);
          // Focus moved to the view's heading (keyboard and screen-reader users land on it).
          expect(await page.evaluate("document.activeElement?.id")).toBe("divergence-title");

          // 6. Contrast (WCAG AA, 4.5:1 for text) in light and dark.
          // In the page (a string: this file is compiled without the DOM's types).
          const colours = () =>
            page.evaluate<Record<string, string>>(`(() => {
              const style = (selector) => getComputedStyle(document.querySelector(selector));
              return {
                panel: style(".panel").backgroundColor,
                page: style("body").backgroundColor,
                text: style("body").color,
                muted: style(".meta").color,
                link: style(".crumbs a").color,
                added: style(".diff .added").color,
                addedBackground: style(".diff .added").backgroundColor,
              };
            })()`);
          const checkContrast = async (scheme: string) => {
            const c = await colours();
            for (const [name, ratio] of [
              ["text", contrast(c.text!, c.panel!)],
              ["muted", contrast(c.muted!, c.panel!)],
              ["link", contrast(c.link!, c.page!)],
              ["diff", contrast(c.added!, c.addedBackground!)],
            ] as const) {
              expect(ratio, `${scheme} ${name}`).toBeGreaterThanOrEqual(4.5);
            }
            return c;
          };
          const light = await checkContrast("light");

          // 7. Screenshots at two widths (checked in under docs/screenshots with
          //    CURSOR_GATEWAY_UPDATE_SCREENSHOTS=1; otherwise written to a temporary folder).
          const shots =
            process.env.CURSOR_GATEWAY_UPDATE_SCREENSHOTS === "1"
              ? screenshotFolder
              : folders.create();
          mkdirSync(shots, { recursive: true });
          await page.evaluate("window.scrollTo(0, 0)");
          const wide = await page.screenshot({ fullPage: true });
          expect(pngWidth(wide)).toBe(1280);
          writeFileSync(join(shots, "report-conversation-1280.png"), wide);

          await page.emulateMedia({ colorScheme: "dark" });
          const dark = await checkContrast("dark");
          expect(dark.panel).not.toBe(light.panel);
          writeFileSync(join(shots, "report-conversation-dark-1280.png"), await page.screenshot());

          await page.emulateMedia({ colorScheme: "light" });
          await page.setViewportSize({ width: 420, height: 900 });
          await page.goto(`${gateway.url}/ui/#/`);
          await page.locator("[data-testid=summary]").waitFor();
          const narrow = await page.screenshot({ fullPage: true });
          expect(pngWidth(narrow)).toBe(420);
          writeFileSync(join(shots, "report-list-420.png"), narrow);
          // The page does not scroll sideways at 420 px (wide tables scroll in their own box).
          expect(
            await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"),
          ).toBe(true);

          expect(pageErrors).toEqual([]);
          expect(requested.filter((url) => !url.startsWith(gateway.url))).toEqual([]);
          await context.close();
        } finally {
          await browser.close();
          await gateway.close();
          await provider.fake.close();
        }
      },
    );
  },
);
