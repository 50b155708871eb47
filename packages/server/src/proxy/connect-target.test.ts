import { describe, expect, it } from "vitest";
import { formatAuthority, isCursorHost, parseConnectTarget } from "./connect-target.js";

describe("isCursorHost", () => {
  it("takes cursor.sh and its subdomains only", () => {
    for (const host of [
      "cursor.sh",
      "api2.cursor.sh",
      "agent.api5.cursor.sh",
      "AGENTN.API5.Cursor.SH",
      "api3.cursor.sh.",
    ]) {
      expect(isCursorHost(host), host).toBe(true);
    }
    for (const host of [
      "cursor.com",
      "evilcursor.sh",
      "cursor.sh.evil.com",
      "api2.cursor.shop",
      "marketplace.visualstudio.com",
      "127.0.0.1",
    ]) {
      expect(isCursorHost(host), host).toBe(false);
    }
  });
});

describe("parseConnectTarget", () => {
  it("reads host:port, IPv4 and bracketed IPv6", () => {
    expect(parseConnectTarget("api2.cursor.sh:443")).toEqual({ host: "api2.cursor.sh", port: 443 });
    expect(parseConnectTarget("API2.Cursor.sh.:8443")).toEqual({
      host: "api2.cursor.sh",
      port: 8443,
    });
    expect(parseConnectTarget("127.0.0.1:9443")).toEqual({ host: "127.0.0.1", port: 9443 });
    expect(parseConnectTarget("[::1]:443")).toEqual({ host: "::1", port: 443 });
    expect(formatAuthority({ host: "::1", port: 443 })).toBe("[::1]:443");
  });

  it("refuses anything else", () => {
    for (const bad of [
      "api2.cursor.sh",
      "api2.cursor.sh:0",
      "api2.cursor.sh:65536",
      ":443",
      "a b:443",
      "[nothex]:443",
      "http://x:443",
      "x:443/",
      "user@x:443",
      "-bad-.com:443",
    ]) {
      expect(parseConnectTarget(bad), bad).toBeUndefined();
    }
  });
});
