import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packageName } from "./index.js";

describe("@cursor/checkpoint entry point", () => {
  it("names the package it is published as", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(packageName).toBe(manifest.name);
  });
});
