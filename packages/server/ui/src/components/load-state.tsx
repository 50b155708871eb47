import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import type { Loaded } from "../use-load.js";

/** Loading and error states of a view; `children` renders the value. */
export function LoadState<T>({
  loaded,
  what,
  onError,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  onError: (error: unknown) => void;
  children: (value: T) => ComponentChildren;
}) {
  const error = loaded.state === "error" ? loaded.error : undefined;
  useEffect(() => {
    if (error !== undefined) onError(error);
  }, [error]);
  switch (loaded.state) {
    case "loading":
      return (
        <p class="status" role="status">
          Loading {what}…
        </p>
      );
    case "error":
      return (
        <p class="status error" role="alert">
          Could not load {what}:{" "}
          {loaded.error instanceof Error ? loaded.error.message : String(loaded.error)}
        </p>
      );
    case "ready":
      return <>{children(loaded.value)}</>;
    default: {
      const exhaustive: never = loaded;
      return exhaustive;
    }
  }
}
