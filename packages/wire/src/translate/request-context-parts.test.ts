import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { PreFetchedBlob } from "../gen/agent_v1_pb.js";
import {
  PreFetchedBlobSchema,
  RequestContextMcpsPartSchema,
  RequestContextPartReferencesSchema,
  RequestContextRulesPartSchema,
  RequestContextSchema,
} from "../gen/agent_v1_pb.js";
import { sha256 } from "../hex.js";
import { ClientBlobSource } from "./client-blob-source.js";
import { resolveContextParts } from "./request-context-parts.js";

const rulesPart = toBinary(
  RequestContextRulesPartSchema,
  create(RequestContextRulesPartSchema, {
    rules: [
      {
        fullPath: "/r/a.mdc",
        content: "From the blob.",
        type: { type: { case: "global", value: {} } },
      },
    ],
    cloudRule: "Cloud from the blob.",
  }),
);
const mcpsPart = toBinary(
  RequestContextMcpsPartSchema,
  create(RequestContextMcpsPartSchema, {
    tools: [{ providerIdentifier: "git", toolName: "log", inputSchemaJson: "{}" }],
  }),
);
const attached = (data: Uint8Array): PreFetchedBlob =>
  create(PreFetchedBlobSchema, { id: sha256(data), value: data });

const empty = sha256(new Uint8Array());

async function errorOf(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (error: unknown) => error as { code: string; message: string },
  );
}

describe("request_context_parts", () => {
  it("resolves part blobs, with dynamic_context replacing the action's context", async () => {
    const references = create(RequestContextPartReferencesSchema, {
      rulesBlobId: sha256(rulesPart),
      rulesByteLength: rulesPart.length,
      mcpsBlobId: sha256(mcpsPart),
      mcpsByteLength: mcpsPart.length,
      skillsBlobId: empty,
      skillsByteLength: 0,
      dynamicContext: { env: { osVersion: "darwin" }, gitRepos: [{ path: "/r" }] },
    });
    const parts = await resolveContextParts({
      requestContext: create(RequestContextSchema, { env: { osVersion: "ignored" } }),
      references,
      blobs: new ClientBlobSource({
        prefetched: [attached(rulesPart), attached(mcpsPart)],
        kv: undefined,
      }),
    });
    expect(parts?.rules.map((rule) => rule.content)).toEqual(["From the blob."]);
    expect(parts?.cloudRule).toBe("Cloud from the blob.");
    expect(parts?.mcpTools.map((tool) => tool.toolName)).toEqual(["log"]);
    expect(parts?.agentSkills).toEqual([]);
    expect(parts?.env?.osVersion).toBe("darwin");
    expect(parts?.gitRepos.map((repo) => repo.path)).toEqual(["/r"]);
  });

  it("refuses a part whose bytes do not have the declared length", async () => {
    const references = create(RequestContextPartReferencesSchema, {
      rulesBlobId: sha256(rulesPart),
      rulesByteLength: rulesPart.length + 1,
    });
    const error = await errorOf(
      resolveContextParts({
        requestContext: undefined,
        references,
        blobs: new ClientBlobSource({ prefetched: [attached(rulesPart)], kv: undefined }),
      }),
    );
    expect(error?.code).toBe("invalid_argument");
    expect(error?.message).toContain(
      `has ${rulesPart.length} bytes, rules_byte_length says ${rulesPart.length + 1}`,
    );
  });

  it("refuses an attached blob whose SHA-256 is not its id when it is used, and a bad id", async () => {
    const source = new ClientBlobSource({
      prefetched: [create(PreFetchedBlobSchema, { id: sha256(mcpsPart), value: rulesPart })],
      kv: undefined,
    });
    await expect(source.get(sha256(mcpsPart))).rejects.toThrow(
      /pre_fetched_blobs\[0\] does not match its id [0-9a-f]{64} \(SHA-256 differs\)/,
    );
    expect(
      () =>
        new ClientBlobSource({
          prefetched: [create(PreFetchedBlobSchema, { id: new Uint8Array(3), value: rulesPart })],
          kv: undefined,
        }),
    ).toThrow("pre_fetched_blobs[0].id has 3 bytes, not 32");
  });

  it("reports a part blob the client does not have", async () => {
    const references = create(RequestContextPartReferencesSchema, {
      rulesBlobId: sha256(rulesPart),
      rulesByteLength: rulesPart.length,
    });
    const error = await errorOf(
      resolveContextParts({
        requestContext: undefined,
        references,
        blobs: new ClientBlobSource({ prefetched: [], kv: undefined }),
      }),
    );
    expect(error?.code).toBe("failed_precondition");
    expect(error?.message).toContain("request-context rules part");
  });

  it("says nothing when the action carries no context at all", async () => {
    expect(
      await resolveContextParts({
        requestContext: undefined,
        references: undefined,
        blobs: new ClientBlobSource({ prefetched: [], kv: undefined }),
      }),
    ).toBeUndefined();
  });
});
