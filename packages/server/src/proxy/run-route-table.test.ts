import { afterEach, describe, expect, it, vi } from "vitest";
import { RunHoldError, RunRouteTable } from "./run-route-table.js";

function table(overrides: Partial<ConstructorParameters<typeof RunRouteTable>[0]> = {}) {
  return new RunRouteTable({
    holdTimeoutMs: 1_000,
    retentionMs: 60_000,
    maxRuns: 100,
    maxHeld: 10,
    ...overrides,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("RunRouteTable", () => {
  it("holds a request until its run is decided, then releases it with the decision", async () => {
    const routes = table();
    const held = routes.waitFor("r1");
    expect(routes.held).toBe(1);
    expect(routes.decide("r1", "gateway")).toBe("gateway");
    await expect(held).resolves.toEqual({ target: "gateway", timedOut: false });
    expect(routes.held).toBe(0);
    await expect(routes.waitFor("r1")).resolves.toEqual({ target: "gateway", timedOut: false });
  });

  it("keeps the first decision of a run", () => {
    const routes = table();
    routes.decide("r1", "cursor");
    expect(routes.decide("r1", "gateway")).toBe("cursor");
    expect(routes.target("r1")).toBe("cursor");
    expect(routes.target("r2")).toBeUndefined();
  });

  it("sends a run to Cursor when no run request arrives in time", async () => {
    vi.useFakeTimers();
    const timeouts: string[] = [];
    const routes = table({ onTimeout: (id) => timeouts.push(id) });
    const first = routes.waitFor("r1");
    const second = routes.waitFor("r1");
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(first).resolves.toEqual({ target: "cursor", timedOut: true });
    await expect(second).resolves.toEqual({ target: "cursor", timedOut: true });
    expect(timeouts).toEqual(["r1"]);
    expect(routes.decide("r1", "gateway")).toBe("cursor");
  });

  it("lets an aborted request go without deciding the run", async () => {
    const routes = table();
    const controller = new AbortController();
    const held = routes.waitFor("r1", controller.signal);
    controller.abort();
    await expect(held).rejects.toSatisfy(
      (error) => RunHoldError.isInstance(error) && error.reason === "aborted",
    );
    expect(routes.held).toBe(0);
    expect(routes.size).toBe(0);
  });

  it("refuses more held requests than its bound and never evicts a waiting run", async () => {
    const routes = table({ maxHeld: 2, maxRuns: 1 });
    const waiting = [routes.waitFor("a"), routes.waitFor("b")];
    await expect(routes.waitFor("c")).rejects.toSatisfy(
      (error) => RunHoldError.isInstance(error) && error.reason === "too-many-held",
    );
    routes.decide("x", "cursor");
    expect(routes.size).toBe(3);
    routes.decide("a", "gateway");
    routes.decide("b", "cursor");
    await Promise.all(waiting);
    routes.decide("y", "cursor");
    expect(routes.size).toBe(1);
    expect(routes.target("y")).toBe("cursor");
  });

  it("forgets decisions after the retention time", () => {
    let now = 0;
    const routes = table({ now: () => now });
    routes.decide("r1", "gateway");
    now = 59_000;
    expect(routes.target("r1")).toBe("gateway");
    now = 120_000;
    expect(routes.target("r1")).toBeUndefined();
  });

  it("refuses waiting requests when closed", async () => {
    const routes = table();
    const held = routes.waitFor("r1");
    routes.close();
    await expect(held).rejects.toSatisfy(
      (error) => RunHoldError.isInstance(error) && error.reason === "closing",
    );
    expect(routes.held).toBe(0);
  });
});
