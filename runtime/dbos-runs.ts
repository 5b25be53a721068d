/**
 * The stored-runs face's DBOS side (see stored-runs.ts): the workflow a DBOS database keeps a run
 * under, the events and messages of a waiting run, and the registration a worker serves programs
 * by. Apart from stored-runs.ts because it loads DBOS's SDK: only the DBOS store and worker import it.
 */
export {
  registerProgram,
  RUN_WORKFLOW,
  type Inputs,
  type Outputs,
  type ProgramRunner,
  type RunStops,
} from "./dbos/workflows.js";
export { FINISHED, WAITING_EVENT, type AnswerMessage, type WaitingEvent } from "./dbos/dbos-durability.js";
