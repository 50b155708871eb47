import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidCursorError } from "../usage/usage-reports.js";
import type { UsageReports } from "../usage/usage-reports.js";
import { HttpError } from "./http-error.js";

const callIdPattern = /^[A-Za-z0-9-]{1,64}$/;

/** `?limit=` as an integer of 1..max (`fallback` when absent); a 400 in the contract's shape. */
function pageLimit(request: FastifyRequest, fallback: number, max: number): number {
  const { limit } = request.query as { limit?: string };
  const parsed = limit === undefined ? fallback : Number(limit);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max) {
    throw new HttpError("invalid_request", `limit must be an integer from 1 to ${max}`, [
      { path: "limit", message: `an integer from 1 to ${max}` },
    ]);
  }
  return parsed;
}

function pageCursor(request: FastifyRequest): string | undefined {
  const { cursor } = request.query as { cursor?: string };
  if (cursor === undefined) return undefined;
  if (cursor.length === 0 || cursor.length > 512) {
    throw new HttpError("invalid_request", "cursor must be a nextCursor of an earlier page", [
      { path: "cursor", message: "a nextCursor of an earlier page" },
    ]);
  }
  return cursor;
}

async function cursorErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (InvalidCursorError.isInstance(error)) {
      throw new HttpError("invalid_request", error.message, [
        { path: "cursor", message: "a nextCursor of an earlier page" },
      ]);
    }
    throw error;
  }
}

/**
 * The usage endpoints (the bearer token's tenant only):
 * - `GET /v1/conversations/{id}/calls?cursor&limit`: the conversation's usage records, oldest first;
 * - `GET /v1/conversations/{id}/calls/{callId}/divergence`: the prefix doctor's view of a break;
 * - `GET /v1/usage`: the tenant-wide summary (cached ratio, cost, cost saved);
 * - `GET /v1/usage/conversations?cursor&limit`: conversations, most recently active first.
 */
export function registerUsageRoutes(
  app: FastifyInstance,
  {
    reports,
    conversationIdParam,
    settled = async () => undefined,
  }: {
    reports: UsageReports;
    conversationIdParam: (request: FastifyRequest) => string;
    /**
     * Resolves once the tenant's runs that answered have written their usage records (they
     * follow a run's answer): a read right after `run.ended` sees the run's calls.
     */
    settled?: (tenant: string) => Promise<void>;
  },
): void {
  // Every route below reads usage records: each first waits for the tenant's records in flight.
  app.get("/v1/conversations/:id/calls", async (request) => {
    const conversationId = conversationIdParam(request);
    await settled(request.tenant!.id);
    const limit = pageLimit(request, 100, 1_000);
    const cursor = pageCursor(request);
    return cursorErrors(() =>
      reports.calls({
        tenant: request.tenant!.id,
        conversationId,
        limit,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
  });

  app.get("/v1/conversations/:id/calls/:callId/divergence", async (request) => {
    const conversationId = conversationIdParam(request);
    const { callId } = request.params as { callId: string };
    if (!callIdPattern.test(callId)) {
      throw new HttpError("invalid_request", "callId must be a call id of /calls", [
        { path: "callId", message: "a call id of /calls" },
      ]);
    }
    await settled(request.tenant!.id);
    const answer = await reports.divergence({
      tenant: request.tenant!.id,
      conversationId,
      callId,
    });
    if (answer === undefined) {
      throw new HttpError("not_found", `conversation ${conversationId} has no call ${callId}`);
    }
    return answer;
  });

  app.get("/v1/usage", async (request) => {
    await settled(request.tenant!.id);
    return reports.summary({ tenant: request.tenant!.id });
  });

  app.get("/v1/usage/conversations", async (request) => {
    await settled(request.tenant!.id);
    const limit = pageLimit(request, 50, 500);
    const cursor = pageCursor(request);
    return cursorErrors(() =>
      reports.conversations({
        tenant: request.tenant!.id,
        limit,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
  });
}
