import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact-secrets.js";

describe("redactSecrets", () => {
  it("removes configured secrets and key-shaped values", () => {
    expect(
      redactSecrets("Incorrect API key provided: sk-proj-abcdefgh1234. my-secret-key-value here", [
        "my-secret-key-value",
      ]),
    ).toBe("Incorrect API key provided: [redacted]. [redacted] here");
    expect(redactSecrets("x-api-key sk-ant-api03-AAAAAAAAAA is invalid")).toBe(
      "x-api-key [redacted] is invalid",
    );
    expect(redactSecrets("nothing secret")).toBe("nothing secret");
  });
});
