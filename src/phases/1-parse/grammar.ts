// Generated from grammar/prose.ne by `npm run grammar` (nearley). Do not edit.
// @ts-nocheck
// Generated automatically by nearley, version 2.20.1
// http://github.com/Hardmath123/nearley
// Bypasses TS6133. Allow declared but unused functions.
// @ts-ignore
function id(d: any[]): any { return d[0]; }
declare var NEWLINE: any;
declare var INDENT: any;
declare var DEDENT: any;
declare var string: any;
declare var name: any;
declare var target: any;
declare var discretion: any;
declare var SKIPPED: any;
declare var declaration: any;
declare var type: any;
declare var binaryOperator: any;
declare var atom: any;
declare var ref: any;
declare var adjacentParen: any;

import * as b from "./build.js";
import { tokenStream, atom, ref, target, adjacentParen, declaration, binaryOperator } from "./grammar-support.js";

interface NearleyToken {
  value: any;
  [key: string]: any;
};

interface NearleyLexer {
  reset: (chunk: string, info: any) => void;
  next: () => NearleyToken | undefined;
  save: () => any;
  formatError: (token: never) => string;
  has: (tokenType: string) => boolean;
};

interface NearleyRule {
  name: string;
  symbols: NearleySymbol[];
  postprocess?: (d: any[], loc?: number, reject?: {}) => any;
};

type NearleySymbol = string | { literal: any } | { test: (token: any) => boolean };

interface Grammar {
  Lexer: NearleyLexer | undefined;
  ParserRules: NearleyRule[];
  ParserStart: string;
};

const grammar: Grammar = {
  Lexer: tokenStream,
  ParserRules: [
    {"name": "Chunk", "symbols": ["Statements"], "postprocess": ([list]) => b.flatten(list)},
    {"name": "Statements", "symbols": ["Statement"], "postprocess": ([s]) => b.cons(null, s)},
    {"name": "Statements", "symbols": ["Statements", "Statement"], "postprocess": ([list, s]) => b.cons(list, s)},
    {"name": "Block", "symbols": [(tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE), (tokenStream.has("INDENT") ? {type: "INDENT"} : INDENT), "Statements", (tokenStream.has("DEDENT") ? {type: "DEDENT"} : DEDENT)], "postprocess": ([, , list]) => b.body(list)},
    {"name": "Statement", "symbols": [{"literal":"use"}, (tokenStream.has("string") ? {type: "string"} : string), "Alias", (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": ([k, s, a]) => b.use(k, s, a)},
    {"name": "Statement", "symbols": [{"literal":"import"}, (tokenStream.has("string") ? {type: "string"} : string), {"literal":"from"}, (tokenStream.has("string") ? {type: "string"} : string), (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": ([k, skill, , source]) => b.importStatement(k, skill, source)},
    {"name": "Statement", "symbols": [{"literal":"input"}, (tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, "Expr", "BlockModifiers", (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": ([k, n, , v, m]) => b.input(k, n, v, m)},
    {"name": "Statement", "symbols": [{"literal":"output"}, (tokenStream.has("name") ? {type: "name"} : name), {"literal":"="}, "Value"], "postprocess": ([k, n, , v]) => b.output(k, n, v)},
    {"name": "Statement", "symbols": [{"literal":"output"}, "Value"], "postprocess": ([k, v]) => b.output(k, null, v)},
    {"name": "Statement", "symbols": ["Declaration", (tokenStream.has("name") ? {type: "name"} : name), {"literal":"="}, "Value"], "postprocess": ([d, n, , v]) => b.binding(d, d, n, v)},
    {"name": "Statement", "symbols": ["Declaration", {"literal":"{"}, "NameList", {"literal":"}"}, {"literal":"="}, "Value"], "postprocess": ([d, , names, , , v]) => b.destructure(d, names, v)},
    {"name": "Statement", "symbols": [(tokenStream.has("target") ? {type: "target"} : target), {"literal":"="}, "Value"], "postprocess": ([n, , v]) => b.binding(n, null, n, v)},
    {"name": "Statement", "symbols": [{"literal":"throw"}, "OptionalExpr", (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": ([k, m]) => b.throwStatement(k, m)},
    {"name": "Statement", "symbols": ["Jump", (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": id},
    {"name": "Statement", "symbols": [{"literal":"assert"}, "Expr", "AssertMessage"], "postprocess": ([k, t, m]) => b.assertStatement(k, t, m)},
    {"name": "Statement", "symbols": [{"literal":"agent"}, (tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, "Properties"], "postprocess": ([k, n, , p]) => b.agent(k, n, p)},
    {"name": "Statement", "symbols": [{"literal":"block"}, (tokenStream.has("name") ? {type: "name"} : name), "Params", "BlockModifiers", {"literal":":"}, "Block"], "postprocess": ([k, n, p, m, , body]) => b.block(k, n, p, m, body)},
    {"name": "Statement", "symbols": ["If"], "postprocess": id},
    {"name": "Statement", "symbols": [{"literal":"choice"}, (tokenStream.has("discretion") ? {type: "discretion"} : discretion), {"literal":":"}, (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE), (tokenStream.has("INDENT") ? {type: "INDENT"} : INDENT), "Options", (tokenStream.has("DEDENT") ? {type: "DEDENT"} : DEDENT)], "postprocess": ([k, c, , , , o]) => b.choice(k, c, o)},
    {"name": "Statement", "symbols": ["Value"], "postprocess": ([e]) => b.expressionStatement(e)},
    {"name": "Statement", "symbols": [(tokenStream.has("SKIPPED") ? {type: "SKIPPED"} : SKIPPED), (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": ([s]) => s.skipped},
    {"name": "Value", "symbols": ["Expr", (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": id},
    {"name": "Value", "symbols": ["BlockExpr"], "postprocess": id},
    {"name": "Jump", "symbols": [{"literal":"return"}], "postprocess": ([k]) => b.jump("Return", k)},
    {"name": "Jump", "symbols": [{"literal":"break"}], "postprocess": ([k]) => b.jump("Break", k)},
    {"name": "Jump", "symbols": [{"literal":"continue"}], "postprocess": ([k]) => b.jump("Continue", k)},
    {"name": "AssertMessage", "symbols": [(tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": () => null},
    {"name": "AssertMessage", "symbols": [{"literal":":"}, (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE), (tokenStream.has("INDENT") ? {type: "INDENT"} : INDENT), (tokenStream.has("string") ? {type: "string"} : string), (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE), (tokenStream.has("DEDENT") ? {type: "DEDENT"} : DEDENT)], "postprocess": ([, , , m]) => m},
    {"name": "Declaration", "symbols": [(tokenStream.has("declaration") ? {type: "declaration"} : declaration)], "postprocess": id},
    {"name": "Alias", "symbols": [], "postprocess": () => null},
    {"name": "Alias", "symbols": [{"literal":"as"}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([, a]) => a},
    {"name": "OptionalExpr", "symbols": [], "postprocess": () => null},
    {"name": "OptionalExpr", "symbols": ["Expr"], "postprocess": id},
    {"name": "Params", "symbols": [], "postprocess": () => null},
    {"name": "Params", "symbols": [{"literal":"("}, {"literal":")"}], "postprocess": () => null},
    {"name": "Params", "symbols": [{"literal":"("}, "NameList", {"literal":")"}], "postprocess": ([, list]) => list},
    {"name": "NameList", "symbols": [(tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([n]) => b.cons(null, n)},
    {"name": "NameList", "symbols": ["NameList", {"literal":","}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([list, , n]) => b.cons(list, n)},
    {"name": "BlockModifiers", "symbols": [], "postprocess": () => null},
    {"name": "BlockModifiers", "symbols": [{"literal":"("}, "KeyedModifierList", {"literal":")"}], "postprocess": ([, list]) => list},
    {"name": "If", "symbols": ["IfClauses"], "postprocess": ([c]) => b.ifStatement(c, null)},
    {"name": "If", "symbols": ["IfClauses", {"literal":"else"}, {"literal":":"}, "Block"], "postprocess": ([c, , , body]) => b.ifStatement(c, body)},
    {"name": "IfClauses", "symbols": [{"literal":"if"}, "Expr", {"literal":":"}, "Block"], "postprocess": ([k, t, , body]) => b.cons(null, b.ifClause(k, t, body))},
    {"name": "IfClauses", "symbols": ["IfClauses", {"literal":"elif"}, "Expr", {"literal":":"}, "Block"], "postprocess": ([list, k, t, , body]) => b.cons(list, b.ifClause(k, t, body))},
    {"name": "Options", "symbols": ["Option"], "postprocess": ([o]) => b.cons(null, o)},
    {"name": "Options", "symbols": ["Options", "Option"], "postprocess": ([list, o]) => b.cons(list, o)},
    {"name": "Option", "symbols": [{"literal":"option"}, (tokenStream.has("string") ? {type: "string"} : string), {"literal":":"}, "Block"], "postprocess": ([k, label, , body]) => b.choiceOption(k, label, body)},
    {"name": "Properties", "symbols": [(tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE), (tokenStream.has("INDENT") ? {type: "INDENT"} : INDENT), "PropertyList", (tokenStream.has("DEDENT") ? {type: "DEDENT"} : DEDENT)], "postprocess": ([, , list]) => b.propertyBlock(list)},
    {"name": "PropertyList", "symbols": ["Property"], "postprocess": ([p]) => b.cons(null, p)},
    {"name": "PropertyList", "symbols": ["PropertyList", "Property"], "postprocess": ([list, p]) => b.cons(list, p)},
    {"name": "Property", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, "Expr", (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": ([k, , v]) => b.property(k, v)},
    {"name": "Property", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, (tokenStream.has("type") ? {type: "type"} : type), (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE)], "postprocess": ([k, , t]) => b.typeProperty(k, t)},
    {"name": "Property", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, "Properties"], "postprocess": ([k, , v]) => b.property(k, v)},
    {"name": "BlockExpr", "symbols": ["BlockExprBase"], "postprocess": id},
    {"name": "BlockExpr", "symbols": ["Expr", {"literal":"->"}, "BlockExprBase"], "postprocess": ([l, , r]) => b.arrow(l, r)},
    {"name": "BlockExprBase", "symbols": ["SessionHead", "Properties"], "postprocess": ([h, p]) => b.withProperties(h, p.properties)},
    {"name": "BlockExprBase", "symbols": [{"literal":"session"}, "Properties"], "postprocess": ([k, p]) => b.session(k, null, null, null, k, p.properties)},
    {"name": "BlockExprBase", "symbols": [{"literal":"resume"}, {"literal":":"}, (tokenStream.has("name") ? {type: "name"} : name), "Properties"], "postprocess": ([k, , a, p]) => b.resume(k, a, p.properties)},
    {"name": "BlockExprBase", "symbols": [{"literal":"parallel"}, "Modifiers", {"literal":":"}, "Block"], "postprocess": ([k, m, , body]) => b.parallel(k, m, body)},
    {"name": "BlockExprBase", "symbols": [{"literal":"repeat"}, "Expr", "LoopIndex", {"literal":":"}, "Block"], "postprocess": ([k, n, i, , body]) => b.repeat(k, n, i, body)},
    {"name": "BlockExprBase", "symbols": ["ForHead", "Modifiers", {"literal":":"}, "Block"], "postprocess": ([h, m, , body]) => b.forEach(h.first, h.parallel, h.item, h.index, h.collection, m, body)},
    {"name": "BlockExprBase", "symbols": [{"literal":"loop"}, "LoopCondition", "Modifiers", "LoopIndex", {"literal":":"}, "Block"], "postprocess": ([k, c, m, i, , body]) => b.loop(k, c, m, i, body)},
    {"name": "BlockExprBase", "symbols": [{"literal":"try"}, {"literal":":"}, "Block", "OptionalCatch", "OptionalFinally"], "postprocess": ([k, , body, c, f]) => b.tryExpression(k, body, c, f)},
    {"name": "BlockExprBase", "symbols": [{"literal":"do"}, {"literal":":"}, "Block"], "postprocess": ([k, , body]) => b.doBlock(k, body)},
    {"name": "BlockExprBase", "symbols": ["Operands", "Stages"], "postprocess": ([source, stages]) => b.pipeline(b.operation(source), stages)},
    {"name": "BlockExprBase", "symbols": ["Operands", (tokenStream.has("NEWLINE") ? {type: "NEWLINE"} : NEWLINE), (tokenStream.has("INDENT") ? {type: "INDENT"} : INDENT), "Stages", (tokenStream.has("DEDENT") ? {type: "DEDENT"} : DEDENT)], "postprocess": ([source, , , stages]) => b.pipeline(b.operation(source), stages)},
    {"name": "ForHead", "symbols": [{"literal":"for"}, "ForNames", {"literal":"in"}, "Expr"], "postprocess": ([k, n, , c]) => ({ first: k, parallel: false, item: n.item, index: n.index, collection: c })},
    {"name": "ForHead", "symbols": [{"literal":"parallel"}, {"literal":"for"}, "ForNames", {"literal":"in"}, "Expr"], "postprocess": ([k, , n, , c]) => ({ first: k, parallel: true, item: n.item, index: n.index, collection: c })},
    {"name": "ForNames", "symbols": [(tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([item]) => ({ item, index: null })},
    {"name": "ForNames", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":","}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([item, , index]) => ({ item, index })},
    {"name": "LoopCondition", "symbols": [], "postprocess": () => null},
    {"name": "LoopCondition", "symbols": [{"literal":"until"}, "Expr"], "postprocess": ([m, t]) => b.loopCondition(m, t)},
    {"name": "LoopCondition", "symbols": [{"literal":"while"}, "Expr"], "postprocess": ([m, t]) => b.loopCondition(m, t)},
    {"name": "LoopIndex", "symbols": [], "postprocess": () => null},
    {"name": "LoopIndex", "symbols": [{"literal":"as"}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([, n]) => n},
    {"name": "OptionalCatch", "symbols": [], "postprocess": () => null},
    {"name": "OptionalCatch", "symbols": [{"literal":"catch"}, "Alias", {"literal":":"}, "Block"], "postprocess": ([k, n, , body]) => b.catchClause(k, n, body)},
    {"name": "OptionalFinally", "symbols": [], "postprocess": () => null},
    {"name": "OptionalFinally", "symbols": [{"literal":"finally"}, {"literal":":"}, "Block"], "postprocess": ([, , body]) => body},
    {"name": "Stages", "symbols": ["Stage"], "postprocess": ([s]) => b.cons(null, s)},
    {"name": "Stages", "symbols": ["Stages", "Stage"], "postprocess": ([list, s]) => b.cons(list, s)},
    {"name": "Stage", "symbols": [{"literal":"|"}, "PipeOperator", {"literal":":"}, "Block"], "postprocess": ([bar, op, , body]) => b.pipeStage(bar, op, null, body)},
    {"name": "Stage", "symbols": [{"literal":"|"}, {"literal":"reduce"}, {"literal":"("}, "NameList", {"literal":")"}, {"literal":":"}, "Block"], "postprocess": ([bar, op, , params, , , body]) => b.pipeStage(bar, op, params, body)},
    {"name": "PipeOperator", "symbols": [{"literal":"map"}], "postprocess": id},
    {"name": "PipeOperator", "symbols": [{"literal":"filter"}], "postprocess": id},
    {"name": "PipeOperator", "symbols": [{"literal":"pmap"}], "postprocess": id},
    {"name": "Modifiers", "symbols": [], "postprocess": () => null},
    {"name": "Modifiers", "symbols": [{"literal":"("}, "ModifierList", {"literal":")"}], "postprocess": ([, list]) => list},
    {"name": "ModifierList", "symbols": ["Modifier"], "postprocess": ([m]) => b.cons(null, m)},
    {"name": "ModifierList", "symbols": ["ModifierList", {"literal":","}, "Modifier"], "postprocess": ([list, , m]) => b.cons(list, m)},
    {"name": "Modifier", "symbols": ["Expr"], "postprocess": ([v]) => b.modifier(null, v)},
    {"name": "Modifier", "symbols": ["KeyedModifier"], "postprocess": id},
    {"name": "KeyedModifierList", "symbols": ["KeyedModifier"], "postprocess": ([m]) => b.cons(null, m)},
    {"name": "KeyedModifierList", "symbols": ["KeyedModifierList", {"literal":","}, "KeyedModifier"], "postprocess": ([list, , m]) => b.cons(list, m)},
    {"name": "KeyedModifier", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, "Expr"], "postprocess": ([k, , v]) => b.modifier(k, v)},
    {"name": "Expr", "symbols": ["Expr", {"literal":"->"}, "Operands"], "postprocess": ([l, , r]) => b.arrow(l, b.operation(r))},
    {"name": "Expr", "symbols": ["Operands"], "postprocess": ([list]) => b.operation(list)},
    {"name": "Operands", "symbols": ["Operand"], "postprocess": ([o]) => b.cons(null, o)},
    {"name": "Operands", "symbols": ["Operands", "BinaryOperator", "Operand"], "postprocess": ([list, op, o]) => b.cons(b.cons(list, op), o)},
    {"name": "BinaryOperator", "symbols": [(tokenStream.has("binaryOperator") ? {type: "binaryOperator"} : binaryOperator)], "postprocess": id},
    {"name": "Operand", "symbols": [{"literal":"not"}, "Operand"], "postprocess": ([o, e]) => b.notPrefix(o, e)},
    {"name": "Operand", "symbols": [{"literal":"-"}, "Operand"], "postprocess": ([o, e]) => b.unary(o, e)},
    {"name": "Operand", "symbols": ["Postfix"], "postprocess": id},
    {"name": "Postfix", "symbols": ["Postfix", {"literal":"."}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([o, , p]) => b.member(o, p)},
    {"name": "Postfix", "symbols": ["Postfix", {"literal":"["}, "Expr", {"literal":"]"}], "postprocess": ([o, , i, close]) => b.index(o, i, close)},
    {"name": "Postfix", "symbols": [(tokenStream.has("atom") ? {type: "atom"} : atom)], "postprocess": ([t]) => b.atom(t)},
    {"name": "Postfix", "symbols": [{"literal":"["}, "OptionalElements", {"literal":"]"}], "postprocess": ([o, list, c]) => b.array(o, list, c)},
    {"name": "Postfix", "symbols": [{"literal":"{"}, "OptionalEntries", {"literal":"}"}], "postprocess": ([o, list, c]) => b.object(o, list, c)},
    {"name": "Postfix", "symbols": [{"literal":"("}, "Expr", {"literal":")"}], "postprocess": ([, e]) => e},
    {"name": "Postfix", "symbols": [{"literal":"session"}, "SessionTarget"], "postprocess": ([k, t]) => b.session(k, t.name, t.agent, t.prompt, t.last)},
    {"name": "Postfix", "symbols": [{"literal":"resume"}, {"literal":":"}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([k, , a]) => b.resume(k, a)},
    {"name": "Postfix", "symbols": [{"literal":"do"}, (tokenStream.has("name") ? {type: "name"} : name), "DoArguments"], "postprocess": ([k, n, args]) => b.doCall(k, n, args.list, args.close)},
    {"name": "Postfix", "symbols": [(tokenStream.has("ref") ? {type: "ref"} : ref), (tokenStream.has("adjacentParen") ? {type: "adjacentParen"} : adjacentParen), "OptionalNamedArguments", {"literal":")"}], "postprocess": ([n, , args, c]) => b.programCall(n, args, c)},
    {"name": "SessionHead", "symbols": [{"literal":"session"}, "SessionTarget"], "postprocess": ([k, t]) => b.session(k, t.name, t.agent, t.prompt, t.last)},
    {"name": "SessionTarget", "symbols": [(tokenStream.has("string") ? {type: "string"} : string)], "postprocess": ([p]) => ({ name: null, agent: null, prompt: p, last: p })},
    {"name": "SessionTarget", "symbols": [{"literal":":"}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([, a]) => ({ name: null, agent: a, prompt: null, last: a })},
    {"name": "SessionTarget", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([n, , a]) => ({ name: n, agent: a, prompt: null, last: a })},
    {"name": "DoArguments", "symbols": [], "postprocess": () => ({ list: null, close: null })},
    {"name": "DoArguments", "symbols": [{"literal":"("}, "OptionalExprList", {"literal":")"}], "postprocess": ([, list, close]) => ({ list, close })},
    {"name": "OptionalExprList", "symbols": [], "postprocess": () => null},
    {"name": "OptionalExprList", "symbols": ["ExprList", "OptionalComma"], "postprocess": id},
    {"name": "OptionalEntries", "symbols": [], "postprocess": () => null},
    {"name": "OptionalEntries", "symbols": ["Entries", "OptionalComma"], "postprocess": id},
    {"name": "OptionalNamedArguments", "symbols": [], "postprocess": () => null},
    {"name": "OptionalNamedArguments", "symbols": ["NamedArguments", "OptionalComma"], "postprocess": id},
    {"name": "ExprList", "symbols": ["Expr"], "postprocess": ([e]) => b.cons(null, e)},
    {"name": "ExprList", "symbols": ["ExprList", {"literal":","}, "Expr"], "postprocess": ([list, , e]) => b.cons(list, e)},
    {"name": "OptionalElements", "symbols": [], "postprocess": () => null},
    {"name": "OptionalElements", "symbols": ["Elements", "OptionalComma"], "postprocess": id},
    {"name": "Elements", "symbols": ["Element"], "postprocess": ([e]) => b.cons(null, e)},
    {"name": "Elements", "symbols": ["Elements", {"literal":","}, "Element"], "postprocess": ([list, , e]) => b.cons(list, e)},
    {"name": "Element", "symbols": ["Expr"], "postprocess": id},
    {"name": "Element", "symbols": [{"literal":"prompt"}, {"literal":":"}, "Expr"], "postprocess": ([k, , v]) => b.keyedElement(k, v)},
    {"name": "Entries", "symbols": ["Entry"], "postprocess": ([e]) => b.cons(null, e)},
    {"name": "Entries", "symbols": ["Entries", {"literal":","}, "Entry"], "postprocess": ([list, , e]) => b.cons(list, e)},
    {"name": "Entry", "symbols": [(tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([k]) => b.entry(b.identifier(k), null)},
    {"name": "Entry", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, "Expr"], "postprocess": ([k, , v]) => b.entry(b.identifier(k), v)},
    {"name": "Entry", "symbols": [(tokenStream.has("string") ? {type: "string"} : string), {"literal":":"}, "Expr"], "postprocess": ([k, , v]) => b.entry(b.string(k), v)},
    {"name": "Entry", "symbols": ["EntryPath", {"literal":"."}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([path, , p]) => b.pathEntry(path, p)},
    {"name": "EntryPath", "symbols": [(tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([n]) => b.identifier(n)},
    {"name": "EntryPath", "symbols": ["EntryPath", {"literal":"."}, (tokenStream.has("name") ? {type: "name"} : name)], "postprocess": ([o, , p]) => b.member(o, p)},
    {"name": "NamedArguments", "symbols": ["NamedArgument"], "postprocess": ([a]) => b.cons(null, a)},
    {"name": "NamedArguments", "symbols": ["NamedArguments", {"literal":","}, "NamedArgument"], "postprocess": ([list, , a]) => b.cons(list, a)},
    {"name": "NamedArgument", "symbols": [(tokenStream.has("name") ? {type: "name"} : name), {"literal":":"}, "Expr"], "postprocess": ([n, , v]) => b.namedArgument(n, v)},
    {"name": "OptionalComma", "symbols": []},
    {"name": "OptionalComma", "symbols": [{"literal":","}]}
  ],
  ParserStart: "Chunk",
};

export default grammar;
