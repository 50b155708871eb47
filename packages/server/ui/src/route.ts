import { useEffect, useState } from "preact/hooks";

/** The page's places, kept in the URL's fragment (links work with the keyboard and Back). */
export type Route =
  | { readonly page: "list" }
  | { readonly page: "conversation"; readonly conversationId: string; readonly callId?: string };

function parseRoute(hash: string): Route {
  const match = /^#\/c\/([^/]+)(?:\/call\/([^/]+))?$/.exec(hash);
  if (match === null) return { page: "list" };
  const conversationId = decodeURIComponent(match[1]!);
  return match[2] === undefined
    ? { page: "conversation", conversationId }
    : { page: "conversation", conversationId, callId: decodeURIComponent(match[2]) };
}

export const conversationHref = (conversationId: string) =>
  `#/c/${encodeURIComponent(conversationId)}`;

export const callHref = (conversationId: string, callId: string) =>
  `#/c/${encodeURIComponent(conversationId)}/call/${encodeURIComponent(callId)}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}
