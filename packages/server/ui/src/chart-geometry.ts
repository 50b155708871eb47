import type { CallView } from "../../src/usage/usage-api.js";

/**
 * Where the chart draws each call: a bar for the input size (left axis, tokens) and a point for
 * the cached share (right axis, 0–100 %), one band per call in the records' order; and the
 * marks between calls where a compaction started a new epoch or the gateway process restarted.
 * Pure (no DOM): the same inputs give the same picture.
 */
export const chartBox = {
  width: 960,
  height: 320,
  left: 72,
  right: 64,
  top: 28,
  bottom: 44,
} as const;

interface ChartPoint {
  readonly call: CallView;
  readonly index: number;
  /** The band's centre. */
  readonly x: number;
  readonly bandWidth: number;
  /** Top of the input-size bar; equals the baseline without usage. */
  readonly barY: number;
  /** The cached-share point; null without usage (a failed call). */
  readonly pointY: number | null;
}

interface ChartMark {
  readonly kind: "compaction" | "restart";
  /** Between the bands of the call before and this call. */
  readonly x: number;
  readonly beforeCallId: string;
  readonly label: string;
}

export interface ChartLayout {
  readonly plot: {
    readonly left: number;
    readonly top: number;
    readonly width: number;
    readonly height: number;
  };
  /** The left axis's top value (tokens), a round number at or above the largest input. */
  readonly inputMax: number;
  readonly inputTicks: readonly number[];
  readonly points: readonly ChartPoint[];
  readonly marks: readonly ChartMark[];
}

/** 1, 2 or 5 times a power of ten, at or above `value` (1 for 0). */
function roundUp(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= value) return step * power;
  }
  return 10 * power;
}

export function chartLayout(calls: readonly CallView[]): ChartLayout {
  const plot = {
    left: chartBox.left,
    top: chartBox.top,
    width: chartBox.width - chartBox.left - chartBox.right,
    height: chartBox.height - chartBox.top - chartBox.bottom,
  };
  const largest = calls.reduce((max, call) => Math.max(max, call.usage?.inputTokens ?? 0), 0);
  const inputMax = roundUp(largest);
  const bandWidth = calls.length === 0 ? plot.width : plot.width / calls.length;
  const baseline = plot.top + plot.height;
  const points = calls.map((call, index): ChartPoint => {
    const input = call.usage?.inputTokens ?? 0;
    return {
      call,
      index,
      x: plot.left + bandWidth * (index + 0.5),
      bandWidth,
      barY: baseline - (plot.height * input) / inputMax,
      pointY: call.cachedRatio === null ? null : plot.top + plot.height * (1 - call.cachedRatio),
    };
  });
  const marks: ChartMark[] = [];
  for (let index = 1; index < calls.length; index += 1) {
    const previous = calls[index - 1]!;
    const call = calls[index]!;
    const x = plot.left + bandWidth * index;
    if (call.process.id !== previous.process.id) {
      marks.push({ kind: "restart", x, beforeCallId: call.callId, label: "restart" });
    }
    if (call.epoch !== previous.epoch) {
      marks.push({
        kind: "compaction",
        x,
        beforeCallId: call.callId,
        label: `compaction → epoch ${call.epoch}`,
      });
    }
  }
  return {
    plot,
    inputMax,
    inputTicks: [0, 0.25, 0.5, 0.75, 1].map((share) => share * inputMax),
    points,
    marks,
  };
}
