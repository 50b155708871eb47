import type { CallView } from "../../../src/usage/usage-api.js";
import { chartBox, chartLayout } from "../chart-geometry.js";
import { percent, tokens } from "../format.js";
import { callHref } from "../route.js";

const shareTicks = [0, 0.25, 0.5, 0.75, 1];

function describe(call: CallView, number: number): string {
  const parts = [
    `Call ${number}`,
    call.kind === "summarizer" ? "summariser" : "model",
    call.usage === null
      ? `${call.outcome}, no usage reported`
      : `${tokens(call.usage.inputTokens)} input tokens, ${percent(call.cachedRatio)} cached`,
  ];
  if (call.prefix.status === "broke") {
    parts.push(
      call.prefix.divergence === null
        ? "prefix broke"
        : `prefix broke at ${call.prefix.divergence.path}`,
    );
  }
  return parts.join(", ");
}

/**
 * Each call's input size (bars, left axis) and cached share (points, right axis) over the
 * conversation, with compactions and restarts marked. A point where the prefix broke is a link
 * to the prefix doctor's view of the two bodies.
 */
export function CallChart({
  conversationId,
  calls,
  selectedCallId,
}: {
  conversationId: string;
  calls: readonly CallView[];
  selectedCallId?: string;
}) {
  const layout = chartLayout(calls);
  const { plot } = layout;
  const baseline = plot.top + plot.height;
  const linePoints = layout.points
    .filter((point) => point.pointY !== null)
    .map((point) => `${point.x.toFixed(2)},${point.pointY!.toFixed(2)}`)
    .join(" ");
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${chartBox.width} ${chartBox.height}`}
        role="img"
        aria-labelledby="chart-title chart-desc"
        data-testid="call-chart"
        data-plot-top={plot.top}
        data-plot-height={plot.height}
        data-input-max={layout.inputMax}
      >
        <title id="chart-title">Cached share and input size of each call</title>
        <desc id="chart-desc">
          {`${calls.length} calls. Bars: input tokens (left axis, up to ${tokens(layout.inputMax)}). Points: share of the input read from the provider's cache (right axis). Dashed lines: compactions and gateway restarts. Red points: calls whose prefix broke; each is a link to the prefix doctor's view.`}
        </desc>
        {layout.inputTicks.map((tick, index) => {
          const y = baseline - (plot.height * tick) / layout.inputMax;
          return (
            <g key={`l${index}`} class="tick">
              <line class="grid" x1={plot.left} x2={plot.left + plot.width} y1={y} y2={y} />
              <text x={plot.left - 8} y={y + 4} text-anchor="end">
                {tokens(tick)}
              </text>
            </g>
          );
        })}
        {shareTicks.map((tick) => (
          <text
            key={`r${tick}`}
            class="tick"
            x={plot.left + plot.width + 8}
            y={plot.top + plot.height * (1 - tick) + 4}
          >
            {`${tick * 100}%`}
          </text>
        ))}
        <text class="axis-label" x={plot.left} y={14}>
          input tokens
        </text>
        <text class="axis-label" x={plot.left + plot.width} y={14} text-anchor="end">
          cached share
        </text>
        <text
          class="axis-label"
          x={plot.left + plot.width / 2}
          y={chartBox.height - 8}
          text-anchor="middle"
        >
          calls, oldest first
        </text>
        {layout.points.map((point) => (
          <rect
            key={`b${point.call.callId}`}
            class={`bar${point.call.usage === null ? " bar-empty" : ""}`}
            data-bar-call-id={point.call.callId}
            x={point.x - point.bandWidth * 0.3}
            width={point.bandWidth * 0.6}
            y={point.barY}
            height={baseline - point.barY}
          />
        ))}
        {layout.marks.map((mark, index) => (
          <g
            key={`m${index}`}
            class={`mark mark-${mark.kind}`}
            data-mark={mark.kind}
            data-before-call-id={mark.beforeCallId}
          >
            <line x1={mark.x} x2={mark.x} y1={plot.top - 6} y2={baseline} />
            <text x={mark.x + 3} y={plot.top + 10 + (mark.kind === "restart" ? 14 : 0)}>
              {mark.label}
            </text>
          </g>
        ))}
        {linePoints.length === 0 ? null : <polyline class="share-line" points={linePoints} />}
        {layout.points.map((point) => {
          const { call } = point;
          const number = point.index + 1;
          if (point.pointY === null) {
            return (
              <g
                key={`p${call.callId}`}
                class="point point-failed"
                data-point-call-id={call.callId}
                data-status={call.prefix.status}
              >
                <title>{describe(call, number)}</title>
                <path d={`M${point.x - 5},${baseline - 5} l10,10 m0,-10 l-10,10`} />
              </g>
            );
          }
          const shape =
            call.kind === "summarizer" ? (
              <rect
                x={point.x - 6}
                y={point.pointY - 6}
                width={12}
                height={12}
                transform={`rotate(45 ${point.x} ${point.pointY})`}
              />
            ) : (
              <circle cx={point.x} cy={point.pointY} r={call.prefix.status === "broke" ? 7 : 5} />
            );
          const attributes = {
            class: `point point-${call.prefix.status}${call.kind === "summarizer" ? " point-summarizer" : ""}${call.callId === selectedCallId ? " selected" : ""}`,
            "data-point-call-id": call.callId,
            "data-status": call.prefix.status,
            "data-cached-ratio": String(call.cachedRatio),
            "data-y": point.pointY.toFixed(3),
          };
          return call.prefix.status === "broke" ? (
            <a
              key={`p${call.callId}`}
              href={callHref(conversationId, call.callId)}
              aria-label={`${describe(call, number)}: open the prefix doctor's view`}
              {...attributes}
            >
              <title>{describe(call, number)}</title>
              {shape}
            </a>
          ) : (
            <g key={`p${call.callId}`} {...attributes}>
              <title>{describe(call, number)}</title>
              {shape}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="key key-bar">input tokens</span>
        <span class="key key-point">cached share</span>
        <span class="key key-broke">prefix broke (select to open the prefix doctor)</span>
        <span class="key key-summarizer">summariser call</span>
        <span class="key key-mark">compaction / restart</span>
      </figcaption>
    </figure>
  );
}
