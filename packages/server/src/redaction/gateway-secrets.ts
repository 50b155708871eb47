import type { GatewayConfig } from "../config.js";
import { databasePassword } from "../store/database-url.js";
import { SecretRedactor } from "./secret-redactor.js";

/**
 * Every secret a gateway's configuration holds: the models' provider keys and the database
 * password. None may leave the gateway (errors, logs, events, records).
 */
function gatewaySecrets(config: Pick<GatewayConfig, "models" | "databaseURL">): readonly string[] {
  const keys = config.models.flatMap((model) => (model.apiKey === undefined ? [] : [model.apiKey]));
  const password = config.databaseURL === undefined ? "" : databasePassword(config.databaseURL);
  return password === "" ? keys : [...keys, password];
}

/** The gateway's one redaction path for a configuration (share it with the gateway's logger). */
export function createGatewayRedactor(
  config: Pick<GatewayConfig, "models" | "databaseURL">,
): SecretRedactor {
  return new SecretRedactor({ secrets: gatewaySecrets(config) });
}
