import { setMaxListeners } from "node:events";

/**
 * An AbortController whose signal every concurrent step below it listens to (up to the concurrency
 * limit at once), so Node's leak warning at 10 listeners does not apply.
 */
export function sharedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
