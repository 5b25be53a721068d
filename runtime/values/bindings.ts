/**
 * What a judgment sees: the bindings in scope, by their `.prose` names. A generated module lists
 * its program-level bindings once, in order of declaration (each read through a getter, so the
 * value is the current one); a judgment then names the last binding declared before it. Listing
 * every binding at every judgment instead made generated code grow with the square of the program.
 */
import type { Value } from "../types.js";

type Scope = { readonly [name: string]: Value };

/** Reads the bindings of a frame up to one of them (inclusive), then the inner ones, sorted by name. */
export type BindingsThrough = (last: string, inner?: Scope) => Scope;

/**
 * The program's bindings in order of declaration, as getters by name. An object keeps its keys in
 * the order they were written (a binding's name never reads as an array index), and TypeScript
 * checks an object of ten thousand getters quickly, where an array of pairs costs it hundreds of MB.
 * A getter gives `undefined` for a binding declared without a value that is not bound yet (one every
 * option of a `choice` binds, read by a judgment in an earlier option): the judgment sees `null`.
 */
export function bindingsInOrder(frame: { readonly [name: string]: () => Value | undefined }): BindingsThrough {
  const getters = Object.entries(frame);
  const position = new Map(getters.map(([name], index) => [name, index]));
  return (last, inner = {}) => {
    const end = position.get(last);
    if (end === undefined) throw new Error(`prosec: no program binding is named ${JSON.stringify(last)}.`);
    const values = new Map<string, Value>();
    for (let index = 0; index <= end; index++) values.set(getters[index]![0], getters[index]![1]() ?? null);
    // Inner bindings shadow the program's of the same name.
    for (const [name, value] of Object.entries(inner)) values.set(name, value);
    const sorted = [...values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(sorted);
  };
}
