/**
 * What callers outside the compiler use of this phase without loading it: the cost bound's
 * arithmetic and formatting (`prosec run` prints a program's bound at start-up) and the "did you
 * mean" of a misspelt option. These modules import nothing of the analyzer, so `prosec run` of a
 * cached module (src/run/module-cache.ts) starts without the compiler. index.ts exports them too.
 */
export { closest } from "./suggest.js";
export { Poly } from "./cost/poly.js";
export { dollarCount, formatCount, formatDollars, formatNumber } from "./cost/format.js";
