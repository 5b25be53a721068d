/**
 * The face for a program's host: what prosec's CLI and DBOS worker set up around a run that the run
 * options do not (the project's `.mcp.json`, its installed skills, the secrets a worker keeps from
 * tools, an OS failure said as an environment error, a JSON file's problem said without its text),
 * and the checked GET `fetch_url` uses, which the registry's fetches share. Applications pass these
 * through RunOptions; generated code never needs them.
 */
export { asEnvironmentError, EnvironmentError } from "./errors.js";
export { findMcpConfig, readMcpConfig } from "./tools/mcp/config.js";
export { jsonProblem } from "./json-problem.js";
export { installedSkills } from "./tools/skills.js";
export { Secrets } from "./tools/secrets.js";
// The registry's fetches (src/registry/) reach the network under the same checks as fetch_url.
export { getChecked, type HopChecks } from "./tools/http-fetch.js";
export { isInternalAddress, literalAddress } from "./tools/network-rules.js";
