import type {
  CallView,
  CallsPage,
  ConversationsPage,
  DivergenceResponse,
  UsageSummaryView,
} from "../../src/usage/usage-api.js";
import { currentToken } from "./token-store.js";

/** The gateway refused the token (or wants one): the page asks for it. */
export class UnauthorizedError extends Error {
  constructor() {
    super("the gateway wants a bearer token");
    this.name = "UnauthorizedError";
  }
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** GET on the gateway's API, with the session's bearer token as a header (never in the URL). */
async function get<T>(path: string): Promise<T> {
  const token = currentToken();
  const response = await fetch(path, {
    headers: {
      accept: "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    credentials: "omit",
    cache: "no-store",
  });
  if (response.status === 401) throw new UnauthorizedError();
  const body = (await response.json().catch(() => undefined)) as
    { error?: { message?: string } } | undefined;
  if (!response.ok) {
    throw new ApiError(
      response.status,
      body?.error?.message ?? `the gateway answered ${response.status}`,
    );
  }
  return body as T;
}

export const api = {
  summary: () => get<UsageSummaryView>("/v1/usage"),
  conversations: (cursor?: string) =>
    get<ConversationsPage>(
      `/v1/usage/conversations?limit=50${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    ),
  /** Every call of a conversation, oldest first (all pages). */
  async calls(conversationId: string): Promise<{ calls: CallView[]; retentionDays: number }> {
    const calls: CallView[] = [];
    let cursor: string | undefined;
    let retentionDays = 0;
    do {
      const page = await get<CallsPage>(
        `/v1/conversations/${encodeURIComponent(conversationId)}/calls?limit=1000${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      calls.push(...page.calls);
      retentionDays = page.retentionDays;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { calls, retentionDays };
  },
  divergence: (conversationId: string, callId: string) =>
    get<DivergenceResponse>(
      `/v1/conversations/${encodeURIComponent(conversationId)}/calls/${encodeURIComponent(callId)}/divergence`,
    ),
};
