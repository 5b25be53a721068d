import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { closest } from "../suggest.js";
import type { Rule } from "./rule.js";

/**
 * A call of an imported program passes exactly its inputs, those with a default optionally (E026,
 * E027), and reads only its outputs (E028).
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
    const program = programName === undefined ? undefined : context.importedProgram(programName);
    if (programName !== undefined && program && !program.outputs.includes(node.property.name)) {
      context.report(
        m.unknownProgramOutput(
          node.property.loc,
          programName,
          node.property.name,
          closest(node.property.name, program.outputs),
        ),
      );
    }
  },
};
