/**
 * The face for a program's host: what prosec's CLI and DBOS worker set up around a run that the run
 * options do not (the project's `.mcp.json`, its installed skills, the secrets a worker keeps from
 * tools, an OS failure said as an environment error, a JSON file's problem said without its text).
 * Applications pass these through RunOptions; generated code never needs them.
 */
export { asEnvironmentError, EnvironmentError } from "./errors.js";
export { findMcpConfig, readMcpConfig } from "./tools/mcp/config.js";
export { jsonProblem } from "./json-problem.js";
export { installedSkills } from "./tools/skills.js";
export { Secrets } from "./tools/secrets.js";
