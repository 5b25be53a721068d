/** The ESTree syntax tree prettier's TypeScript parser gives, as tidy.ts reads it. */
export interface Node {
  readonly type: string;
  readonly range: readonly [number, number];
  readonly [key: string]: unknown;
}

const typeKeys = new Set(["typeAnnotation", "returnType", "typeParameters", "typeArguments", "superTypeArguments"]);

export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/** A node's children in source order, types left out. */
export function children(node: Node): Node[] {
  const found: Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "range" || key === "loc" || typeKeys.has(key)) continue;
    if (Array.isArray(value)) found.push(...value.filter(isNode));
    else if (isNode(value)) found.push(value);
  }
  return found.sort((a, b) => a.range[0] - b.range[0]);
}

/** An expression that only builds data (an agent definition): dropping it drops nothing that runs. */
export function isPlainData(node: Node): boolean {
  switch (node.type) {
    case "Literal":
      return true;
    case "TemplateLiteral":
      return (node["expressions"] as Node[]).length === 0;
    case "ArrayExpression":
    case "ObjectExpression":
      return children(node).every(isPlainData);
    case "Property":
      return !node["computed"] && isPlainData(node["value"] as Node);
    case "UnaryExpression":
      return isPlainData(node["argument"] as Node);
    default:
      return false;
  }
}
