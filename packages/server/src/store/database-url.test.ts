import { describe, expect, it } from "vitest";
import { checkDatabaseURL, databaseLabel, databasePassword } from "./database-url.js";

describe("the database URL", () => {
  it("accepts PostgreSQL URLs over TCP and unix sockets", () => {
    for (const url of [
      "postgresql://gateway:s3cret@db.internal:5432/gateway",
      "postgres://gateway@10.0.0.5/gateway?sslmode=require",
      "postgresql://gateway@/gateway?host=/var/run/postgresql",
      "postgresql://localhost",
    ]) {
      expect(checkDatabaseURL(url), url).toBeUndefined();
    }
  });

  it("names what is wrong, never the password", () => {
    const cases: [string, RegExp][] = [
      ["db.internal:5432/gateway", /not a URL|postgresql:\/\//],
      ["mysql://u:p4ssw0rd-x@h/db", /a postgresql:\/\/ \(or postgres:\/\/\) URL, not mysql:\/\//],
      ["postgresql://u:p4ssw0rd-x@/db", /names no host/],
      ["postgresql://u:p4ssw0rd-x@h/db/extra", /database name only/],
      ["postgresql://u:p4ssw0rd-x@h/db#frag", /fragment/],
      ["not a url p4ssw0rd-x", /not a URL/],
    ];
    for (const [url, problem] of cases) {
      const message = checkDatabaseURL(url);
      expect(message, url).toMatch(problem);
      expect(message).not.toContain("p4ssw0rd-x");
    }
  });

  it("labels a URL for logs without its password or query", () => {
    expect(
      databaseLabel("postgresql://gateway:s3cret@db.internal:5432/gateway?sslmode=require"),
    ).toBe("postgresql://gateway@db.internal:5432/gateway");
    expect(databaseLabel("postgresql://gateway:s3cret@/gateway?host=/run/pg")).toBe(
      "postgresql://gateway@/gateway (socket /run/pg)",
    );
    expect(databasePassword("postgresql://gateway:s%40cret@h/db")).toBe("s@cret");
    expect(databasePassword("postgresql://gateway@h/db")).toBe("");
  });
});
