import { describe, expect, it } from "vitest";
import { endToEndHeaders } from "./hop-by-hop.js";

describe("endToEndHeaders", () => {
  it("drops hop-by-hop, pseudo and Connection-named headers and keeps the rest unchanged", () => {
    expect(
      endToEndHeaders({
        ":method": "POST",
        ":authority": "api2.cursor.sh",
        host: "api2.cursor.sh",
        connection: "keep-alive, X-Hop",
        "x-hop": "1",
        "keep-alive": "timeout=5",
        "proxy-authorization": "Basic abc",
        "transfer-encoding": "chunked",
        upgrade: "h2c",
        expect: "100-continue",
        te: "trailers, deflate",
        authorization: "Bearer cursor-session",
        "content-type": "application/proto",
        "x-cursor-client-version": "2.1.0",
        "set-cookie": ["a=1", "b=2"],
      }),
    ).toEqual({
      te: "trailers",
      authorization: "Bearer cursor-session",
      "content-type": "application/proto",
      "x-cursor-client-version": "2.1.0",
      "set-cookie": ["a=1", "b=2"],
    });
  });

  it("drops te without trailers", () => {
    expect(endToEndHeaders({ te: "gzip" })).toEqual({});
  });
});
