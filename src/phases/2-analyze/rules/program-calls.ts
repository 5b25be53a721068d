import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { closest } from "../suggest.js";
import type * as ast from "../../../ast.js";
import type { Rule, RuleContext } from "./rule.js";

/**
 * A call of an imported program passes exactly its inputs, those with a default optionally (E026,
 * E027), and reads only its outputs (E028), by field or by destructuring. A program without outputs
 * returns its final result, whose fields nobody can know ahead.
 */
export const programCalls: Rule = {
  ProgramCall: (node, context) => {
    const program = context.importedProgram(node.callee.name);
    if (!program) return;
    const given = new Set(node.args.map((argument) => argument.name.name));
    for (const argument of node.args) {
      if (!program.inputs.includes(argument.name.name)) {
        context.report(
          m.unknownProgramInput(
            argument.name.loc,
            node.callee.name,
            argument.name.name,
            closest(argument.name.name, program.inputs),
          ),
        );
      }
    }
    for (const input of program.inputs) {
      if (!given.has(input) && !program.optionalInputs?.includes(input))
        context.report(m.missingProgramInput(node.callee.loc, node.callee.name, input));
    }
  },
  Member: (node, context) => {
    if (node.object.kind !== "Identifier") return;
    const programName = context.programResultOf(node.object);
    if (programName !== undefined) checkOutput(node.property, programName, context);
  },
  Destructure: (node, context) => {
    if (node.value.kind !== "ProgramCall") return;
    for (const name of node.names) checkOutput(name, node.value.callee.name, context);
  },
};

function checkOutput(output: ast.Identifier, programName: string, context: RuleContext): void {
  const program = context.importedProgram(programName);
  if (!program || program.outputs.length === 0 || program.outputs.includes(output.name)) return;
  context.report(m.unknownProgramOutput(output.loc, programName, output.name, closest(output.name, program.outputs)));
}
