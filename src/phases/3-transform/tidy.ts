/**
 * What a reviewer would strike from a generated module before it is written, found on its syntax
 * tree (prettier's TypeScript parser, already loaded to format it). Lowering itself now writes no
 * agent nothing uses, no name for a binding nothing reads and no loop item nothing reads (the
 * analysis' `usedAgents` and `readBindings`), in every program; what is left to this pass, for a
 * program not run in parts, is the `= null` no path reads where definite assignment would have to
 * follow a `parallel:`'s join (corpus program 38). The rest below finds nothing in lowering's output
 * any more and goes with this file once that moves into the analysis too:
 *
 * - `let x: T = null;` declared ahead whose `null` no path can read (every read follows an
 *   assignment: an `if` and its `else` both bind `x`) loses its `= null` (linters' `no-useless-assignment`);
 * - `const x = <call>;` whose `x` nothing reads keeps only the call (`no-unused-vars`, `noUnusedLocals`);
 *   a name nothing reads goes with its declaration when that only builds data (an agent nobody
 *   uses), and a `let` with it, each `x = <call>;` keeping its call;
 * - a type import (`type Value`, `type AgentDefinition`) goes when no type names it;
 * - a loop variable or a callback's parameter nothing reads is written without it (`unread-variables.ts`).
 *
 * The analysis is conservative: a name read in a closure, or in a construct it does not model,
 * keeps its `null`. TypeScript's definite-assignment check accepts what it removes (a test
 * type-checks every generated module with the strictest flags).
 */
import { children, isNode, isPlainData, type Node } from "./estree.js";
import { unreadVariableEdits, type Callback, type Edit, type ForOfLoop } from "./unread-variables.js";

interface Binding {
  readonly name: string;
  /** The function whose body declares it. */
  readonly owner: number;
  /** `let x: T = null;`: the `= null` that may go, as a range of the text. */
  readonly nullInitializer?: readonly [number, number];
  /** `const x = <call>;`: the `const x = ` that may go. */
  readonly unusedPrefix?: readonly [number, number];
  /** The whole declaration, when it may go with the name (a `let`, or a `const` of plain data). */
  readonly declaration?: readonly [number, number];
  /** `x = <call>;` statements: the `x = ` of each, which may go with the name; undefined once it is assigned otherwise. */
  assignments: (readonly [number, number])[] | undefined;
  reads: number;
  /** Read where it may still hold its initial `null`, or from another function. */
  nullMayBeRead: boolean;
}

/** The bindings assigned on every path so far; `unreachable` after `return`, `throw`, `break`. */
type Assigned = Set<Binding> | "unreachable";

export async function tidy(code: string): Promise<string> {
  const { parsers } = await import("prettier/plugins/typescript");
  const program = (await parsers.typescript.parse(code, {} as never)) as unknown as Node;
  const walker = new Walker();
  walker.module(program);
  const cuts: (readonly [number, number])[] = [];
  for (const binding of walker.bindings) {
    if (binding.reads === 0 && binding.declaration && binding.assignments) {
      cuts.push(binding.declaration, ...binding.assignments);
      continue;
    }
    if (binding.nullInitializer && !binding.nullMayBeRead) cuts.push(binding.nullInitializer);
    if (binding.unusedPrefix && binding.reads === 0) cuts.push(binding.unusedPrefix);
  }
  // A type only a removed declaration named (an agent nobody uses) is not named.
  const kept = (at: number): boolean => !cuts.some(([start, end]) => start <= at && at < end);
  for (const [name, range] of walker.typeImports)
    if (!walker.typeNames.some((type) => type.name === name && kept(type.at))) cuts.push(range);
  const edits: Edit[] = [
    ...cuts.map((range) => ({ range, text: "" })),
    ...unreadVariableEdits(code, walker.forOfLoops, walker.callbacks),
  ];
  let tidied = code;
  let applied = code.length;
  for (const { range, text } of edits.sort((a, b) => b.range[0] - a.range[0])) {
    // Edits never overlap as written; should one ever, the later one keeps its text.
    if (range[1] > applied) continue;
    tidied = tidied.slice(0, range[0]) + text + tidied.slice(range[1]);
    applied = range[0];
  }
  return tidied;
}

function meet(a: Assigned, b: Assigned): Assigned {
  if (a === "unreachable") return b;
  if (b === "unreachable") return a;
  return new Set([...a].filter((binding) => b.has(binding)));
}

function copy(assigned: Assigned): Assigned {
  return assigned === "unreachable" ? assigned : new Set(assigned);
}

class Walker {
  readonly bindings: Binding[] = [];
  /** Type-only import specifiers, each with its range and the comma before it. */
  readonly typeImports = new Map<string, readonly [number, number]>();
  /** The names types refer to, and where. */
  readonly typeNames: { readonly name: string; readonly at: number }[] = [];
  readonly forOfLoops: ForOfLoop[] = [];
  /** Functions passed straight to a call: their trailing parameters may go. */
  readonly callbacks: Callback[] = [];
  private readonly scopes: Map<string, Binding>[] = [];
  private functions = 0;
  private current = 0;

  module(program: Node): void {
    const body = program["body"] as Node[];
    for (const statement of body) if (statement.type === "ImportDeclaration") this.noteTypeImports(statement);
    this.findTypeNames(program);
    this.statements(body, new Set());
  }

  private noteTypeImports(declaration: Node): void {
    const specifiers = declaration["specifiers"] as Node[];
    // Never the first specifier (a value import, `defineProgram`, comes first): it goes with the comma before it.
    specifiers.forEach((specifier, index) => {
      const previous = specifiers[index - 1];
      if (previous && specifier["importKind"] === "type")
        this.typeImports.set((specifier["local"] as Node)["name"] as string, [previous.range[1], specifier.range[1]]);
    });
  }

  private findTypeNames(node: Node): void {
    if (node.type === "TSTypeReference") {
      const typeName = node["typeName"] as Node;
      if (typeName.type === "Identifier")
        this.typeNames.push({ name: typeName["name"] as string, at: typeName.range[0] });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "range" || key === "loc") continue;
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) this.findTypeNames(child);
    }
  }

  /** A list of statements in a scope of its own (a block, a function body). */
  private statements(list: readonly Node[], assigned: Assigned): Assigned {
    this.scopes.push(new Map());
    for (const statement of list) this.declare(statement);
    let state = assigned;
    for (const statement of list) state = this.statement(statement, state);
    this.scopes.pop();
    return state;
  }

  /** Declares what a statement of a block declares there (hoisted: a block sees all its names). */
  private declare(statement: Node): void {
    const scope = this.scopes.at(-1)!;
    const target = statement.type === "ExportNamedDeclaration" ? (statement["declaration"] as Node | null) : statement;
    if (!target) return;
    if (target.type === "FunctionDeclaration") {
      const id = target["id"] as Node | null;
      if (id) scope.set(id["name"] as string, this.binding(id["name"] as string));
    } else if (target.type === "VariableDeclaration") {
      const declarators = target["declarations"] as Node[];
      for (const declarator of declarators) {
        const id = declarator["id"] as Node;
        const init = declarator["init"] as Node | null;
        if (id.type !== "Identifier") {
          for (const name of this.patternNames(id)) scope.set(name, this.binding(name));
          continue;
        }
        const name = id["name"] as string;
        const single = declarators.length === 1 && statement === target;
        const nullInitializer =
          target["kind"] === "let" && id["typeAnnotation"] && init?.type === "Literal" && init["raw"] === "null"
            ? ([id.range[1], init.range[1]] as const)
            : undefined;
        const unusedPrefix =
          single && target["kind"] === "const" && (init?.type === "AwaitExpression" || init?.type === "CallExpression")
            ? ([target.range[0], init.range[0]] as const)
            : undefined;
        const removable =
          single &&
          (target["kind"] === "let"
            ? init === null || nullInitializer !== undefined
            : init !== null && isPlainData(init));
        const declaration = removable ? ([target.range[0], target.range[1]] as const) : undefined;
        scope.set(name, this.binding(name, { nullInitializer, unusedPrefix, declaration }));
      }
    }
  }

  private binding(
    name: string,
    edits: Partial<Pick<Binding, "nullInitializer" | "unusedPrefix" | "declaration">> = {},
  ): Binding {
    const binding: Binding = {
      name,
      owner: this.current,
      ...(edits.nullInitializer ? { nullInitializer: edits.nullInitializer } : {}),
      ...(edits.unusedPrefix ? { unusedPrefix: edits.unusedPrefix } : {}),
      ...(edits.declaration ? { declaration: edits.declaration } : {}),
      assignments: [],
      reads: 0,
      nullMayBeRead: false,
    };
    this.bindings.push(binding);
    return binding;
  }

  private patternNames(pattern: Node): string[] {
    switch (pattern.type) {
      case "Identifier":
        return [pattern["name"] as string];
      case "AssignmentPattern":
        return this.patternNames(pattern["left"] as Node);
      case "RestElement":
        return this.patternNames(pattern["argument"] as Node);
      case "Property":
        return this.patternNames(pattern["value"] as Node);
      case "ArrayPattern":
      case "ObjectPattern":
        return children(pattern).flatMap((child) => this.patternNames(child));
      default:
        return [];
    }
  }

  private resolve(name: string): Binding | undefined {
    for (let index = this.scopes.length - 1; index >= 0; index--) {
      const binding = this.scopes[index]!.get(name);
      if (binding) return binding;
    }
    return undefined;
  }

  private statement(node: Node, assigned: Assigned): Assigned {
    switch (node.type) {
      case "ImportDeclaration":
      case "EmptyStatement":
      case "TSTypeAliasDeclaration":
      case "TSInterfaceDeclaration":
        return assigned;
      case "ExportNamedDeclaration":
      case "ExportDefaultDeclaration": {
        const declaration = node["declaration"] as Node | null;
        return declaration ? this.statement(declaration, assigned) : assigned;
      }
      case "FunctionDeclaration":
        this.function(node);
        return assigned;
      case "VariableDeclaration": {
        let state = assigned;
        for (const declarator of node["declarations"] as Node[]) {
          const init = declarator["init"] as Node | null;
          if (init) state = this.expression(init, state);
          const id = declarator["id"] as Node;
          if (id.type !== "Identifier") this.patternReads(id, state);
          const binding = id.type === "Identifier" ? this.resolve(id["name"] as string) : undefined;
          if (binding && !binding.nullInitializer && init && state !== "unreachable") state.add(binding);
        }
        return state;
      }
      case "ExpressionStatement": {
        const expression = node["expression"] as Node;
        const left = expression["left"] as Node | undefined;
        const right = expression["right"] as Node | undefined;
        if (
          expression.type === "AssignmentExpression" &&
          expression["operator"] === "=" &&
          left?.type === "Identifier"
        ) {
          const binding = this.resolve(left["name"] as string);
          const state = this.expression(right!, assigned);
          if (binding && state !== "unreachable") state.add(binding);
          // Without the name, what is left must still do something: a call, or an awaited one.
          if (binding?.assignments && (right!.type === "CallExpression" || right!.type === "AwaitExpression"))
            binding.assignments.push([expression.range[0], right!.range[0]]);
          else if (binding) binding.assignments = undefined;
          return state;
        }
        return this.expression(expression, assigned);
      }
      case "BlockStatement":
        return this.statements(node["body"] as Node[], assigned);
      case "IfStatement": {
        const state = this.expression(node["test"] as Node, assigned);
        const then = this.statement(node["consequent"] as Node, copy(state));
        const alternate = node["alternate"] as Node | null;
        return meet(then, alternate ? this.statement(alternate, copy(state)) : state);
      }
      case "TryStatement": {
        // The body may stop anywhere: the handler and the finalizer start from what held before it.
        const body = this.statement(node["block"] as Node, copy(assigned));
        const handler = node["handler"] as Node | null;
        let after = body;
        if (handler) {
          this.scopes.push(new Map());
          const param = handler["param"] as Node | null;
          if (param) for (const name of this.patternNames(param)) this.scopes.at(-1)!.set(name, this.binding(name));
          after = meet(body, this.statement(handler["body"] as Node, copy(assigned)));
          this.scopes.pop();
        }
        const finalizer = node["finalizer"] as Node | null;
        if (finalizer && this.statement(finalizer, copy(assigned)) === "unreachable") return "unreachable";
        return after;
      }
      case "ReturnStatement":
      case "ThrowStatement": {
        const argument = node["argument"] as Node | null;
        if (argument) this.expression(argument, assigned);
        return "unreachable";
      }
      case "BreakStatement":
      case "ContinueStatement":
        return "unreachable";
      case "ForStatement":
      case "ForOfStatement":
      case "ForInStatement":
      case "WhileStatement": {
        // The body may not run: what it assigns is not assigned after the loop.
        this.scopes.push(new Map());
        const init = (node["init"] ?? node["left"]) as Node | null;
        let state = assigned;
        if (init?.type === "VariableDeclaration") {
          this.declare(init);
          if (node.type === "ForOfStatement") this.forOfLoops.push({ node, variables: this.scopes.at(-1)! });
          state = this.statement(init, state);
        } else if (init) state = this.expression(init, state);
        const head = (node["test"] ?? node["right"]) as Node | null;
        if (head) state = this.expression(head, state);
        this.statement(node["body"] as Node, copy(state));
        const update = node["update"] as Node | null;
        if (update) this.expression(update, copy(state));
        this.scopes.pop();
        return state;
      }
      default:
        // Anything else (a `switch`, a label): every candidate it reads keeps its `null`.
        this.opaque(node);
        return assigned;
    }
  }

  private function(node: Node, callback = false): void {
    const outer = this.current;
    this.current = ++this.functions;
    this.scopes.push(new Map());
    const params = (node["params"] as Node[]).map((param) => {
      const names = this.patternNames(param.type === "TSParameterProperty" ? (param["parameter"] as Node) : param);
      const bindings = names.map((name) => this.binding(name));
      bindings.forEach((binding) => this.scopes.at(-1)!.set(binding.name, binding));
      return param.type === "Identifier" ? bindings[0] : undefined;
    });
    if (callback) this.callbacks.push({ node, params });
    const body = node["body"] as Node;
    if (body.type === "BlockStatement") this.statements(body["body"] as Node[], new Set());
    else this.expression(body, new Set());
    this.scopes.pop();
    this.current = outer;
  }

  private read(name: string, assigned: Assigned): void {
    const binding = this.resolve(name);
    if (!binding) return;
    binding.reads++;
    if (binding.owner !== this.current || (assigned !== "unreachable" && !assigned.has(binding)))
      binding.nullMayBeRead = true;
  }

  /** Reads in a destructuring pattern's defaults and computed keys. */
  private patternReads(pattern: Node, assigned: Assigned): void {
    if (pattern.type === "AssignmentPattern") this.expression(pattern["right"] as Node, assigned);
    else if (pattern.type !== "Identifier") for (const child of children(pattern)) this.patternReads(child, assigned);
  }

  private assign(target: Node, assigned: Assigned): Assigned {
    if (target.type === "Identifier") {
      const binding = this.resolve(target["name"] as string);
      if (binding) binding.assignments = undefined;
      if (binding && assigned !== "unreachable") assigned.add(binding);
      return assigned;
    }
    if (target.type === "MemberExpression") return this.expression(target, assigned);
    let state = assigned;
    for (const child of children(target)) {
      if (child.type === "Property") state = this.assign(child["value"] as Node, state);
      else if (child.type === "AssignmentPattern") {
        state = this.expression(child["right"] as Node, state);
        state = this.assign(child["left"] as Node, state);
      } else state = this.assign(child, state);
    }
    return state;
  }

  private expression(node: Node, assigned: Assigned): Assigned {
    switch (node.type) {
      case "Identifier":
        this.read(node["name"] as string, assigned);
        return assigned;
      case "AssignmentExpression": {
        const left = node["left"] as Node;
        if (node["operator"] !== "=") this.expression(left, assigned);
        const state = this.expression(node["right"] as Node, assigned);
        return this.assign(left, state);
      }
      case "LogicalExpression": {
        const state = this.expression(node["left"] as Node, assigned);
        this.expression(node["right"] as Node, copy(state));
        return state;
      }
      case "ConditionalExpression": {
        const state = this.expression(node["test"] as Node, assigned);
        return meet(
          this.expression(node["consequent"] as Node, copy(state)),
          this.expression(node["alternate"] as Node, copy(state)),
        );
      }
      case "ArrowFunctionExpression":
      case "FunctionExpression":
        this.function(node);
        return assigned;
      case "CallExpression": {
        let state = this.expression(node["callee"] as Node, assigned);
        for (const argument of node["arguments"] as Node[]) {
          if (argument.type === "ArrowFunctionExpression" || argument.type === "FunctionExpression")
            this.function(argument, true);
          else state = this.expression(argument, state);
        }
        return state;
      }
      case "MemberExpression": {
        const state = this.expression(node["object"] as Node, assigned);
        return node["computed"] ? this.expression(node["property"] as Node, state) : state;
      }
      case "Property": {
        const state = node["computed"] ? this.expression(node["key"] as Node, assigned) : assigned;
        return this.expression(node["value"] as Node, state);
      }
      case "Literal":
      case "TemplateElement":
      case "ThisExpression":
        return assigned;
      default: {
        let state = assigned;
        for (const child of children(node)) state = this.expression(child, state);
        return state;
      }
    }
  }

  /** A construct the analysis does not follow: every name it mentions may read a `null`. */
  private opaque(node: Node): void {
    if (node.type === "Identifier") {
      const binding = this.resolve(node["name"] as string);
      if (binding) {
        binding.reads++;
        binding.nullMayBeRead = true;
      }
      return;
    }
    for (const child of children(node)) this.opaque(child);
  }
}
