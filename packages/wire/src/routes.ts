/** The HTTP paths of the Cursor IDE's agent routes (cursor-wire.md "Routes"), all `POST`. */
export const wireRoutes = Object.freeze({
  runSse: "/agent.v1.AgentService/RunSSE",
  bidiAppend: "/aiserver.v1.BidiService/BidiAppend",
  availableModels: "/aiserver.v1.AiService/AvailableModels",
  getUsableModels: Object.freeze([
    "/agent.v1.AgentService/GetUsableModels",
    "/aiserver.v1.AiService/GetUsableModels",
  ] as const),
});
