import Fastify from "fastify";
import OpenAI from "openai";

// The floor of a gateway built from this project's parts, without any of its work: a Fastify
// server (the gateway's HTTP framework) that hands the body it receives, parsed, to the official
// OpenAI SDK (the provider package's transport) and re-emits the text deltas as SSE. No history,
// no store, no checkpoint, no usage record: what Fastify + the SDK cost per call on their own.
// `node sdk-relay.js <upstream origin>` listens on a free loopback port and prints `listening on <url>`.

const upstream = process.argv[2] ?? "";
const client = new OpenAI({ apiKey: "bench-key", baseURL: `${upstream}/v1`, maxRetries: 0 });
const app = Fastify({ logger: false, bodyLimit: 256 * 1024 * 1024 });

app.post("/v1/responses", async (request, reply) => {
  const body = request.body as OpenAI.Responses.ResponseCreateParamsStreaming;
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  try {
    const events = await client.responses.create(body);
    for await (const event of events) {
      if (event.type === "response.output_text.delta") {
        out.write(
          `event: response.output_text.delta\ndata: ${JSON.stringify({ delta: event.delta })}\n\n`,
        );
      } else if (event.type === "response.completed") {
        out.write(`event: response.completed\ndata: {}\n\n`);
      }
    }
  } catch (error) {
    out.write(`event: error\ndata: ${JSON.stringify({ message: String(error) })}\n\n`);
  }
  out.end();
});

const address = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`listening on ${address}\n`);
process.once("SIGTERM", () => {
  void app.close().then(() => process.exit(0));
});
