/**
 * The adapter id: names this provider in typed errors and keys its entry in an assistant
 * message's replay bag.
 */
export const openAIResponsesProviderId = "openai-responses";
