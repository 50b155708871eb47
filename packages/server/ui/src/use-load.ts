import { useEffect, useState } from "preact/hooks";

export type Loaded<T> =
  | { readonly state: "loading" }
  | { readonly state: "ready"; readonly value: T }
  | { readonly state: "error"; readonly error: unknown };

/** Runs `load` whenever `key` changes; an answer to an older key is dropped. */
export function useLoad<T>(key: string, load: () => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  useEffect(() => {
    let current = true;
    setLoaded({ state: "loading" });
    load().then(
      (value) => current && setLoaded({ state: "ready", value }),
      (error: unknown) => current && setLoaded({ state: "error", error }),
    );
    return () => {
      current = false;
    };
    // `load` is a fresh closure each render; `key` says when it asks for something else.
  }, [key]);
  return loaded;
}
