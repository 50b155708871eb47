import { describe, expect, it } from "vitest";
import { createGatewayLogger } from "./gateway-logger.js";

function capture(isTTY: boolean) {
  const lines: string[] = [];
  return { out: { isTTY, write: (text: string) => lines.push(text) }, lines };
}

describe("createGatewayLogger", () => {
  it("writes one JSON object per line when the output is not a terminal", () => {
    const { out, lines } = capture(false);
    const logger = createGatewayLogger({ level: "info", out, env: {} });
    logger.info({ run: "c-1/r-1 completed" }, "hello");
    logger.debug("not at info");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 30,
      msg: "hello",
      run: "c-1/r-1 completed",
    });
  });

  it("writes readable lines on a terminal: requests, fields, errors with their stack", () => {
    const { out, lines } = capture(true);
    const logger = createGatewayLogger({ level: "info", out, env: { NO_COLOR: "1" } });
    logger.info(
      {
        req: { method: "POST", url: "/v1/runs" },
        res: { statusCode: 200 },
        ms: 12.5,
        run: "c-1/r-1 awaiting-tools",
      },
      "request",
    );
    logger.warn({ conversationId: "c 1", attempt: 2 }, "provider retry");
    logger.error({ err: new TypeError("boom") }, "stored data failed verification");
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}POST \/v1\/runs 200 12\.5 ms run c-1\/r-1 awaiting-tools\n$/,
    );
    expect(lines[1]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}provider retry conversationId="c 1" attempt=2\n$/,
    );
    expect(lines[2]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} ERROR stored data failed verification TypeError: boom\n {4}at /,
    );
    expect(lines.join("")).not.toContain("\u001b[");
  });

  it("colours the level on a terminal unless NO_COLOR is set, and obeys an explicit format", () => {
    const tty = capture(true);
    createGatewayLogger({ level: "info", out: tty.out, env: {} }).info("coloured");
    expect(tty.lines[0]).toContain("\u001b[32mINFO \u001b[0m");
    const json = capture(true);
    createGatewayLogger({ level: "info", format: "json", out: json.out, env: {} }).info("as JSON");
    expect(JSON.parse(json.lines[0]!)).toMatchObject({ msg: "as JSON" });
    const pretty = capture(false);
    createGatewayLogger({ level: "info", format: "pretty", out: pretty.out, env: {} }).info(
      "plain",
    );
    expect(pretty.lines[0]).toMatch(/ INFO {2}plain\n$/);
  });
});
