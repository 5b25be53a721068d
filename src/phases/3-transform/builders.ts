/**
 * The statements lowering writes, built as data (as Svelte's compiler builds with `b.*`) and printed
 * once the list is complete. A statement list (`Lines`) keeps them as built, so it can still turn its
 * finish `x = value;` into `const x = value;`, or drop the name and keep the call, by what the
 * statement is, never by reading text back. Prettier formats the printed module.
 *
 * Expressions stay text (`Lowered.code`): every piece of a `.prose` file in them went through
 * `literals.ts`' escaping already. A name (`name`, `target`) is a TypeScript identifier lowering chose
 * (names.ts), never text from the program.
 */

/** A `const` or `let` of one name. */
export interface Declaration {
  readonly kind: "declaration";
  readonly binding: "const" | "let";
  readonly name: string;
  /** Its TypeScript type, when written (`let x: Value;`). */
  readonly type?: string;
  /** Its initial value; none for a `let` every path assigns before a read. */
  readonly init?: string;
}

/** `target = value;` */
export interface Assignment {
  readonly kind: "assignment";
  readonly target: string;
  readonly value: string;
}

/** `const [a, , b] = value;` or `[a, , b] = value;`: names by position, a hole where nothing is bound. */
export interface ArrayDestructuring {
  readonly kind: "destructuring";
  readonly declare: boolean;
  readonly names: readonly (string | null)[];
  readonly value: string;
}

/** `expression;`: a value computed for what it does (a runtime call). */
export interface ExpressionStatement {
  readonly kind: "expression";
  readonly expression: string;
}

/** Any other line of code lowering writes (a `for` head, a closing brace), as text. */
export interface Code {
  readonly kind: "code";
  readonly text: string;
}

export type Statement = Declaration | Assignment | ArrayDestructuring | ExpressionStatement | Code;

export const b = {
  /** `const name = init;`, or `const name: type = init;` */
  const(name: string, init: string, type?: string): Declaration {
    return { kind: "declaration", binding: "const", name, init, ...(type === undefined ? {} : { type }) };
  },
  /** `let name: type;`, or `let name: type = init;` */
  let(name: string, type: string, init?: string): Declaration {
    return { kind: "declaration", binding: "let", name, type, ...(init === undefined ? {} : { init }) };
  },
  /** `target = value;` */
  assign(target: string, value: string): Assignment {
    return { kind: "assignment", target, value };
  },
  /** `const [a, , b] = value;` (`declare`), or `[a, , b] = value;` */
  destructure(names: readonly (string | null)[], value: string, declare: boolean): ArrayDestructuring {
    return { kind: "destructuring", declare, names, value };
  },
  /** `expression;` */
  expression(expression: string): ExpressionStatement {
    return { kind: "expression", expression };
  },
  /** A line of code as written. */
  code(text: string): Code {
    return { kind: "code", text };
  },
};

/** The statement as TypeScript (before prettier formats it). */
export function print(statement: Statement): string {
  switch (statement.kind) {
    case "declaration": {
      const type = statement.type === undefined ? "" : `: ${statement.type}`;
      const init = statement.init === undefined ? "" : ` = ${statement.init}`;
      return `${statement.binding} ${statement.name}${type}${init};`;
    }
    case "assignment":
      return `${statement.target} = ${statement.value};`;
    case "destructuring":
      return `${statement.declare ? "const " : ""}[${statement.names.map((name) => name ?? "").join(", ")}] = ${statement.value};`;
    case "expression":
      return `${statement.expression};`;
    case "code":
      return statement.text;
  }
}
