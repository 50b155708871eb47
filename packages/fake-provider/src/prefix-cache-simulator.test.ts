import { describe, expect, it } from "vitest";
import { PrefixCacheSimulator } from "./prefix-cache-simulator.js";
import type { PrefixSegment } from "./prefix-cache-simulator.js";
import { CacheMarkerLimitError } from "./fake-provider-errors.js";

/** A segment whose bytes are its label (so equal labels are equal content). */
const seg = (label: string, tokens: number, extra: Partial<PrefixSegment> = {}): PrefixSegment => ({
  label,
  bytes: label,
  tokens,
  ...extra,
});
const marked = (label: string, tokens: number, blockType = "text", ttlMs?: number): PrefixSegment =>
  seg(label, tokens, { blockType, marker: ttlMs === undefined ? {} : { ttlMs } });

const minute = 60_000;

function fixedClock(start = 1_000_000) {
  let now = start;
  return {
    clock: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("PrefixCacheSimulator, OpenAI mode", () => {
  it("caches nothing below 1024 tokens and exactly 1024 at the threshold", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    const small = [seg("tools", 23), seg("input item 0", 1000)];
    expect(sim.simulateOpenAI({ namespace: "a", segments: small }).cachedTokens).toBe(0);
    expect(sim.simulateOpenAI({ namespace: "a", segments: small })).toMatchObject({
      inputTokens: 1023,
      cachedTokens: 0,
      bestPossibleCachedTokens: 0,
    });
    const exact = [seg("tools", 24), seg("input item 0", 1000)];
    expect(sim.simulateOpenAI({ namespace: "b", segments: exact }).cachedTokens).toBe(0);
    expect(sim.simulateOpenAI({ namespace: "b", segments: exact })).toMatchObject({
      inputTokens: 1024,
      cachedTokens: 1024,
      bestPossibleCachedTokens: 1024,
      pureAppend: true,
      divergence: null,
    });
  });

  it("grows the cached count in 128-token steps up to the previous prompt", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    const turn1 = [seg("instructions", 1000), seg("input item 0", 500)];
    const turn2 = [...turn1, seg("input item 1", 300)];
    const turn3 = [...turn2, seg("input item 2", 10)];
    expect(sim.simulateOpenAI({ namespace: "n", segments: turn1 }).cachedTokens).toBe(0);
    // 1500 rounds down to 1024 + 3·128 = 1408.
    expect(sim.simulateOpenAI({ namespace: "n", segments: turn2 })).toMatchObject({
      inputTokens: 1800,
      cachedTokens: 1408,
      bestPossibleCachedTokens: 1408,
    });
    // 1800 rounds down to 1024 + 6·128 = 1792.
    expect(sim.simulateOpenAI({ namespace: "n", segments: turn3 })).toMatchObject({
      inputTokens: 1810,
      cachedTokens: 1792,
      bestPossibleCachedTokens: 1792,
    });
    expect(sim.openaiGranule(1023)).toBe(0);
    expect(sim.openaiGranule(1151)).toBe(1024);
    expect(sim.openaiGranule(1152)).toBe(1152);
  });

  it("keeps checkpoints before a divergence and reports what sits there", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    sim.simulateOpenAI({
      namespace: "n",
      segments: [seg("tools", 1100), seg("input item 0", 500)],
    });
    // Checkpoint 1024 lies inside the unchanged tools segment; 1152 onwards depend on the edit.
    const edited = sim.simulateOpenAI({
      namespace: "n",
      segments: [seg("tools", 1100), seg("input item 0 (edited)", 500), seg("input item 1", 9)],
    });
    expect(edited).toMatchObject({
      cachedTokens: 1024,
      bestPossibleCachedTokens: 1536,
      pureAppend: false,
      sharedSegments: 1,
      divergence: { segment: 1, label: "input item 0 (edited)", previousLabel: "input item 0" },
    });
    // A shorter request diverges at its end.
    const shorter = sim.simulateOpenAI({ namespace: "n", segments: [seg("tools", 1100)] });
    expect(shorter.divergence).toEqual({
      segment: 1,
      label: "(end of request)",
      previousLabel: "input item 0 (edited)",
    });
    expect(shorter.bestPossibleCachedTokens).toBe(1024);
  });

  it("separates namespaces (model, prompt_cache_key)", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    const segments = [seg("instructions", 2000)];
    sim.simulateOpenAI({ namespace: "key-a", segments });
    expect(sim.simulateOpenAI({ namespace: "key-b", segments }).cachedTokens).toBe(0);
    expect(sim.simulateOpenAI({ namespace: "key-a", segments }).cachedTokens).toBe(1920);
  });

  it("expires idle entries after the TTL; reads refresh them", () => {
    const time = fixedClock();
    const sim = new PrefixCacheSimulator({ clock: time.clock, ttlMs: 5 * minute });
    const segments = [seg("instructions", 1024)];
    sim.simulateOpenAI({ namespace: "n", segments });
    time.advance(5 * minute - 1);
    expect(sim.simulateOpenAI({ namespace: "n", segments }).cachedTokens).toBe(1024);
    time.advance(5 * minute - 1);
    expect(sim.simulateOpenAI({ namespace: "n", segments }).cachedTokens).toBe(1024);
    time.advance(5 * minute);
    const expired = sim.simulateOpenAI({ namespace: "n", segments });
    expect(expired).toMatchObject({
      cachedTokens: 0,
      expiredEntries: 1,
      bestPossibleCachedTokens: 1024,
    });
  });

  it("reports cache writes for models that bill them, and nothing when caching is off", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    const first = [seg("tools", 1000), seg("input item 0", 1000)];
    expect(
      sim.simulateOpenAI({ namespace: "w", segments: first, reportsCacheWrites: true }),
    ).toMatchObject({ inputTokens: 2000, cachedTokens: 0, cacheWriteTokens: 1920 });
    const second = [...first, seg("input item 1", 500)];
    expect(
      sim.simulateOpenAI({ namespace: "w", segments: second, reportsCacheWrites: true }),
    ).toMatchObject({
      inputTokens: 2500,
      cachedTokens: 1920,
      cacheWriteTokens: 2432 - 1920,
      uncachedTokens: 2500 - 2432,
    });
    // Older models: writes are free and not reported.
    expect(sim.simulateOpenAI({ namespace: "o", segments: first }).cacheWriteTokens).toBe(0);
    const off = new PrefixCacheSimulator({ clock: () => 0 });
    off.simulateOpenAI({ namespace: "x", segments: first, caching: false });
    expect(off.simulateOpenAI({ namespace: "x", segments: second, caching: false })).toMatchObject({
      cachedTokens: 0,
      cacheWriteTokens: 0,
      bestPossibleCachedTokens: 0,
    });
    // Writes cost 1.25×, reads 0.1×: (1920·1.25 + 80) + (1920·0.1 + 512·1.25 + 68) over 4500.
    expect(sim.stats().sessions[0]!.relativeInputCost).toBeCloseTo(
      (1920 * 1.25 + 80 + 1920 * 0.1 + 512 * 1.25 + 68) / 4500,
      10,
    );
  });

  it("honours a longer per-request lifetime (24 h retention)", () => {
    const time = fixedClock();
    const sim = new PrefixCacheSimulator({ clock: time.clock });
    const segments = [seg("instructions", 1300)];
    sim.simulateOpenAI({ namespace: "n", segments, ttlMs: 24 * 60 * minute });
    time.advance(60 * minute);
    expect(sim.simulateOpenAI({ namespace: "n", segments }).cachedTokens).toBe(1280);
  });

  it("sums session totals: token-weighted ratio, prefix efficiency and relative cost", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    sim.simulateOpenAI({ namespace: "n", segments: [seg("a", 1100)] });
    sim.simulateOpenAI({ namespace: "n", segments: [seg("a", 1100), seg("b", 900)] });
    const stats = sim.stats();
    expect(stats.sessions).toEqual([
      {
        mode: "openai",
        namespace: "n",
        requests: 2,
        inputTokens: 3100,
        cachedTokens: 1024,
        cacheWriteTokens: 0,
        bestPossibleCachedTokens: 1024,
        cachedRatio: 1024 / 3100,
        prefixEfficiency: 1,
        relativeInputCost: (3100 - 1024 + 0.1 * 1024) / 3100,
      },
    ]);
    expect(stats.total.requests).toBe(2);
    sim.reset();
    expect(sim.stats()).toEqual({
      total: {
        requests: 0,
        inputTokens: 0,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        bestPossibleCachedTokens: 0,
        cachedRatio: 0,
        prefixEfficiency: 1,
        relativeInputCost: 1,
      },
      sessions: [],
    });
  });
});

describe("PrefixCacheSimulator, Anthropic mode", () => {
  it("writes at markers at or above the minimum and reads them back", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0, anthropicMinTokens: 1024 });
    const turn1 = [
      seg("tool 0", 600, { blockType: "tool" }),
      marked("system block 0", 600),
      marked("m0", 100),
    ];
    expect(sim.simulateAnthropic({ namespace: "n", segments: turn1 })).toMatchObject({
      inputTokens: 1300,
      cachedTokens: 0,
      cacheWriteTokens: 1300,
      uncachedTokens: 0,
      markers: [1, 2],
    });
    // The marker moved to the newest block; the old position is found by the lookback.
    const turn2 = [
      turn1[0]!,
      turn1[1]!,
      seg("m0", 100, { blockType: "text" }),
      marked("m1", 50),
      seg("m2", 7),
    ];
    expect(sim.simulateAnthropic({ namespace: "n", segments: turn2 })).toMatchObject({
      inputTokens: 1357,
      cachedTokens: 1300,
      cacheWriteTokens: 50,
      uncachedTokens: 7,
      bestPossibleCachedTokens: 1300,
    });
  });

  it("does not write below the minimum", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0, anthropicMinTokens: 1024 });
    const segments = [seg("system", 1000), marked("m0", 23)];
    expect(sim.simulateAnthropic({ namespace: "n", segments })).toMatchObject({
      cachedTokens: 0,
      cacheWriteTokens: 0,
      uncachedTokens: 1023,
    });
    expect(sim.simulateAnthropic({ namespace: "n", segments })).toMatchObject({
      cachedTokens: 0,
      cacheWriteTokens: 0,
      bestPossibleCachedTokens: 0,
    });
  });

  it("looks back exactly 20 positions from a marker", () => {
    const prefix = [marked("system", 2000)];
    const blocks = (count: number) =>
      Array.from({ length: count }, (_, i) => seg(`b${i}`, 1, { blockType: "text" }));
    const run = (extra: number) => {
      const sim = new PrefixCacheSimulator({ clock: () => 0 });
      sim.simulateAnthropic({ namespace: "n", segments: prefix });
      const tail = blocks(extra);
      const last = tail.pop()!;
      // system at position 0; the new marker sits at position `extra`.
      return sim.simulateAnthropic({
        namespace: "n",
        segments: [seg("system", 2000), ...tail, { ...last, marker: {} }],
      });
    };
    expect(run(19).cachedTokens).toBe(2000);
    expect(run(20).cachedTokens).toBe(0);
    expect(run(20).cacheWriteTokens).toBe(2020);
  });

  it("counts a run of consecutive tool_use or tool_result blocks as one position", () => {
    // system at position 0; 10 tool_use (position 1) + 10 tool_result (position 2) + `texts`
    // text blocks (positions 3…), the marker on the last one.
    const run = (texts: number) => {
      const sim = new PrefixCacheSimulator({ clock: () => 0 });
      sim.simulateAnthropic({ namespace: "n", segments: [marked("system", 2000)] });
      const uses = Array.from({ length: 10 }, (_, i) =>
        seg(`use${i}`, 1, { blockType: "tool_use" }),
      );
      const results = Array.from({ length: 10 }, (_, i) =>
        seg(`res${i}`, 1, { blockType: "tool_result" }),
      );
      const tail = Array.from({ length: texts }, (_, i) => seg(`t${i}`, 1, { blockType: "text" }));
      const last = tail.pop()!;
      return sim.simulateAnthropic({
        namespace: "n",
        segments: [seg("system", 2000), ...uses, ...results, ...tail, { ...last, marker: {} }],
      });
    };
    // 17 texts: the marker is at position 19, the system block is inside the window.
    expect(run(17)).toMatchObject({ cachedTokens: 2000, cacheWriteTokens: 37 });
    // 18 texts: position 20, one too far.
    expect(run(18)).toMatchObject({ cachedTokens: 0, cacheWriteTokens: 2038 });
  });

  it("refuses more than four markers", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    const four = Array.from({ length: 4 }, (_, i) => marked(`m${i}`, 10));
    expect(sim.simulateAnthropic({ namespace: "n", segments: four }).markers).toEqual([0, 1, 2, 3]);
    const five = [...four, marked("m4", 10)];
    expect(() => sim.simulateAnthropic({ namespace: "n", segments: five })).toThrow(
      CacheMarkerLimitError,
    );
    try {
      sim.simulateAnthropic({ namespace: "n", segments: five });
    } catch (error) {
      expect(
        CacheMarkerLimitError.isInstance(error) && [error.name, error.markers, error.limit],
      ).toEqual(["CacheMarkerLimitError", 5, 4]);
    }
  });

  it("expires entries after the default TTL but keeps 1 h markers", () => {
    const time = fixedClock();
    const sim = new PrefixCacheSimulator({ clock: time.clock, ttlMs: 5 * minute });
    const fiveMinute = [marked("system", 1500)];
    const oneHour = [marked("system", 1500, "text", 60 * minute)];
    sim.simulateAnthropic({ namespace: "short", segments: fiveMinute });
    const written = sim.simulateAnthropic({ namespace: "long", segments: oneHour });
    expect(written).toMatchObject({ cacheWriteTokens: 1500, cacheWriteTokens1h: 1500 });
    time.advance(10 * minute);
    expect(sim.simulateAnthropic({ namespace: "short", segments: fiveMinute })).toMatchObject({
      cachedTokens: 0,
      cacheWriteTokens: 1500,
      expiredEntries: 1,
    });
    expect(sim.simulateAnthropic({ namespace: "long", segments: oneHour })).toMatchObject({
      cachedTokens: 1500,
      cacheWriteTokens: 0,
      expiredEntries: 0,
    });
    const long = sim.stats().sessions.find((s) => s.namespace === "long")!;
    // 1500 written at 2× then 1500 read at 0.1×, over 3000 input tokens.
    expect(long.relativeInputCost).toBeCloseTo((1500 * 2 + 1500 * 0.1) / 3000, 10);
  });

  it("reports a drop in prefix efficiency when a marker falls out of the lookback window", () => {
    const sim = new PrefixCacheSimulator({ clock: () => 0 });
    sim.simulateAnthropic({ namespace: "n", segments: [marked("system", 2000)] });
    const blocks = Array.from({ length: 25 }, (_, i) => seg(`b${i}`, 4, { blockType: "text" }));
    const last = blocks.pop()!;
    const result = sim.simulateAnthropic({
      namespace: "n",
      segments: [seg("system", 2000), ...blocks, { ...last, marker: {} }],
    });
    expect(result).toMatchObject({
      pureAppend: true,
      cachedTokens: 0,
      bestPossibleCachedTokens: 2000,
    });
    expect(sim.stats().total.prefixEfficiency).toBe(0);
  });
});
