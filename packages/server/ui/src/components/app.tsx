import { useState } from "preact/hooks";
import { UnauthorizedError } from "../api.js";
import { useRoute } from "../route.js";
import { ConversationList } from "./conversation-list.js";
import { ConversationView } from "./conversation-view.js";
import { ThemeSwitch } from "./theme-switch.js";
import { TokenForm } from "./token-form.js";

/** The report page: the tenant's summary and conversations, or one conversation's calls. */
export function App() {
  const route = useRoute();
  // Bumped when a token is entered: every view loads again with it.
  const [generation, setGeneration] = useState(0);
  const [needsToken, setNeedsToken] = useState(false);
  const onError = (error: unknown) => {
    if (error instanceof UnauthorizedError) setNeedsToken(true);
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to the report
      </a>
      <header class="top">
        <h1>
          <a href="#/">Cache report</a>
        </h1>
        <ThemeSwitch />
      </header>
      <main id="main" tabIndex={-1}>
        {needsToken ? (
          <TokenForm
            onSaved={() => {
              setNeedsToken(false);
              setGeneration(generation + 1);
            }}
          />
        ) : route.page === "list" ? (
          <ConversationList key={`list-${generation}`} onError={onError} />
        ) : (
          <ConversationView
            key={`c-${generation}-${route.conversationId}`}
            conversationId={route.conversationId}
            {...(route.callId === undefined ? {} : { callId: route.callId })}
            onError={onError}
          />
        )}
      </main>
    </>
  );
}
