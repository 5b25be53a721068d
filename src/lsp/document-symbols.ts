/**
 * The outline of a program: imports, inputs, agents (with their properties), blocks (with their
 * parameters and what they bind), and the names the program declares, each where it is declared.
 * Names bound inside `if`, loops and `parallel:` appear at the level of the program or block that
 * holds them: OpenProse names are flat.
 */
import { SymbolKind, type DocumentSymbol } from "vscode-languageserver";
import type { Identifier, Node } from "../ast.js";
import type { SymbolInfo } from "../phases/2-analyze/index.js";
import { toRange } from "./positions.js";
import { children } from "./syntax-tree.js";
import type { CheckedDocument } from "./workspace.js";

export function documentSymbols(document: CheckedDocument): DocumentSymbol[] {
  const declared = (identifier: Identifier): SymbolInfo | undefined => {
    const symbol = document.analysis.references.get(identifier);
    return symbol?.declaration === identifier ? symbol : undefined;
  };
  const symbol = (
    name: Identifier,
    kind: SymbolKind,
    node: Node,
    detail: string,
    nested: DocumentSymbol[] = [],
  ): DocumentSymbol => ({
    name: name.name,
    detail,
    kind,
    range: toRange(node.loc),
    selectionRange: toRange(name.loc),
    ...(nested.length > 0 ? { children: nested } : {}),
  });

  const collect = (node: Node): DocumentSymbol[] => {
    switch (node.kind) {
      case "Use": {
        const name = node.alias ?? { kind: "Identifier" as const, name: node.source.value, loc: node.source.loc };
        return [symbol(name, SymbolKind.Module, node, `use "${node.source.value}"`)];
      }
      case "Input":
        return [symbol(node.name, SymbolKind.Field, node, "input")];
      case "Agent":
        return [
          symbol(
            node.name,
            SymbolKind.Class,
            node,
            "agent",
            node.properties.map((property) => symbol(property.key, SymbolKind.Property, property, "property")),
          ),
        ];
      case "Block": {
        const params = node.params.map((param) => symbol(param, SymbolKind.Variable, param, "parameter"));
        return [
          symbol(node.name, SymbolKind.Function, node, `block(${node.params.map((param) => param.name).join(", ")})`, [
            ...params,
            ...node.body.flatMap(collect),
          ]),
        ];
      }
      case "Binding":
      case "Output": {
        const declaration = node.name ? declared(node.name) : undefined;
        const own =
          node.name && declaration
            ? [
                symbol(
                  node.name,
                  kindOf(declaration),
                  node,
                  declaration.kind === "assigned" ? "variable" : declaration.kind,
                ),
              ]
            : [];
        return [...own, ...collect(node.value)];
      }
      case "Destructure":
        return [
          ...node.names.flatMap((name) => {
            const declaration = declared(name);
            return declaration ? [symbol(name, kindOf(declaration), name, declaration.kind)] : [];
          }),
          ...collect(node.value),
        ];
      default:
        return children(node).flatMap(collect);
    }
  };
  return document.analysis.program.body.flatMap(collect);
}

function kindOf(symbol: SymbolInfo): SymbolKind {
  switch (symbol.kind) {
    case "const":
      return SymbolKind.Constant;
    case "output":
      return SymbolKind.Field;
    default:
      return SymbolKind.Variable;
  }
}
