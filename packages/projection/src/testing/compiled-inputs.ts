import { canonicalJson, sha256Hex } from "@cursor/run";
import type { CompiledRequestContext, CompiledRuntime } from "../turn-plan.js";

// Hand-compiled inputs for unit tests of the planning core, which takes already compiled
// request contexts and runtime messages (the real compilers are @cursor/request's).

export function compiledContext(text: string): CompiledRequestContext {
  return { text, digest: sha256Hex(canonicalJson({ context: text })) };
}

/** A runtime message whose content carries a clock that the content digest leaves out. */
export function compiledRuntime(
  text: string,
  timestamp = "2026-11-29T10:00:00+01:00",
): CompiledRuntime {
  return {
    content: [
      { type: "text", text: `<time>${timestamp}</time>\n<user_query>${text}</user_query>` },
    ],
    contentDigest: sha256Hex(canonicalJson({ query: text })),
  };
}
