import { fromBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { ConnectError } from "../connect/connect-error.js";
import type { RequestContext, RequestContextPartReferences } from "../gen/agent_v1_pb.js";
import {
  RequestContextMcpsPartSchema,
  RequestContextRulesPartSchema,
  RequestContextSkillsPartSchema,
  RequestContextSubagentsPartSchema,
} from "../gen/agent_v1_pb.js";
import { toHex } from "../hex.js";
import type { ClientBlobSource } from "./client-blob-source.js";
import type { CursorContextParts } from "./translate-request-context.js";

const emptyBlobId = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

async function part<Desc extends DescMessage>({
  schema,
  blobId,
  byteLength,
  name,
  blobs,
}: {
  schema: Desc;
  blobId: Uint8Array;
  byteLength: number;
  name: string;
  blobs: ClientBlobSource;
}): Promise<MessageShape<Desc> | undefined> {
  if (blobId.length === 0) return undefined;
  if (blobId.length !== 32) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `request_context_parts.${name}_blob_id has ${blobId.length} bytes, not 32`,
    });
  }
  // The empty part (SHA-256 of nothing) needs no round trip.
  const data =
    byteLength === 0 && toHex(blobId) === emptyBlobId
      ? new Uint8Array()
      : await blobs.get(blobId, `request-context ${name} part`);
  if (data.length !== byteLength) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `request-context ${name} part ${toHex(blobId)} has ${data.length} bytes, ${name}_byte_length says ${byteLength}`,
    });
  }
  try {
    return fromBinary(schema, data);
  } catch (error) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `request-context ${name} part ${toHex(blobId)} is not a valid message`,
      cause: error,
    });
  }
}

/**
 * The conversation-level context of an action: its `request_context`, with the large parts that
 * `request_context_parts` moved into client blobs resolved (attached or fetched over KV; SHA-256
 * and declared length checked). `dynamic_context`, when present, replaces the action's context.
 * `undefined` when the action carries no context at all (the latest one stays current).
 */
export async function resolveContextParts({
  requestContext,
  references,
  blobs,
}: {
  requestContext: RequestContext | undefined;
  references: RequestContextPartReferences | undefined;
  blobs: ClientBlobSource;
}): Promise<CursorContextParts | undefined> {
  const context = references?.dynamicContext ?? requestContext;
  if (context === undefined && references === undefined) return undefined;
  const [rules, skills, subagents, mcps] =
    references === undefined
      ? [undefined, undefined, undefined, undefined]
      : await Promise.all([
          part({
            schema: RequestContextRulesPartSchema,
            blobId: references.rulesBlobId,
            byteLength: references.rulesByteLength,
            name: "rules",
            blobs,
          }),
          part({
            schema: RequestContextSkillsPartSchema,
            blobId: references.skillsBlobId,
            byteLength: references.skillsByteLength,
            name: "skills",
            blobs,
          }),
          part({
            schema: RequestContextSubagentsPartSchema,
            blobId: references.subagentsBlobId,
            byteLength: references.subagentsByteLength,
            name: "subagents",
            blobs,
          }),
          part({
            schema: RequestContextMcpsPartSchema,
            blobId: references.mcpsBlobId,
            byteLength: references.mcpsByteLength,
            name: "mcps",
            blobs,
          }),
        ]);
  return {
    rules: rules?.rules ?? context?.rules ?? [],
    nonFileRules: rules?.nonFileRules ?? context?.nonFileRules ?? [],
    cloudRule: rules === undefined ? context?.cloudRule : rules.cloudRule,
    agentSkills: skills?.agentSkills ?? context?.agentSkills ?? [],
    skillOptions: skills === undefined ? context?.skillOptions : skills.skillOptions,
    customSubagents: subagents?.customSubagents ?? context?.customSubagents ?? [],
    mcpTools: mcps?.tools ?? context?.tools ?? [],
    mcpInstructions: mcps?.mcpInstructions ?? context?.mcpInstructions ?? [],
    env: context?.env,
    gitRepos: context?.gitRepos ?? [],
  };
}
