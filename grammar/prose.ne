# The OpenProse grammar (the language of docs/language.md).
#
# The parser is fed one top-level statement at a time (see src/phases/1-parse/parser.ts) by a
# token stream that already holds NEWLINE / INDENT / DEDENT. Keywords are contextual: a grammar
# literal such as "session" matches a `name` token with that text, and %name matches any name.
#
# Rules for keeping this grammar fast: lists are left-recursive cons lists flattened once by their
# owner, postprocessors are O(1) and never mutate their input, and there is no ambiguity (a test
# asserts exactly one parse of every corpus program).

@preprocessor typescript

@{%
import * as b from "./build.js";
import { tokenStream, atom, ref, target, adjacentParen, declaration, binaryOperator } from "./grammar-support.js";
%}

@lexer tokenStream

Chunk -> Statements                                       {% ([list]) => b.flatten(list) %}

Statements -> Statement                                   {% ([s]) => b.cons(null, s) %}
            | Statements Statement                        {% ([list, s]) => b.cons(list, s) %}

Block -> %NEWLINE %INDENT Statements %DEDENT              {% ([, , list]) => b.body(list) %}

# ---------------------------------------------------------------------------------------------
# Statements: simple ones end with NEWLINE, compound ones with the DEDENT of their block.
# ---------------------------------------------------------------------------------------------

Statement -> "use" %string Alias %NEWLINE                 {% ([k, s, a]) => b.use(k, s, a) %}
           | "import" %string "from" %string %NEWLINE     {% ([k, skill, , source]) => b.importStatement(k, skill, source) %}
           | "input" %name ":" Expr BlockModifiers %NEWLINE {% ([k, n, , v, m]) => b.input(k, n, v, m) %}
           | "output" %name "=" Value                     {% ([k, n, , v]) => b.output(k, n, v) %}
           | "output" Value                               {% ([k, v]) => b.output(k, null, v) %}
           | Declaration %name "=" Value                  {% ([d, n, , v]) => b.binding(d, d, n, v) %}
           | Declaration "{" NameList "}" "=" Value       {% ([d, , names, , , v]) => b.destructure(d, names, v) %}
           | %target "=" Value                            {% ([n, , v]) => b.binding(n, null, n, v) %}
           | "throw" OptionalExpr %NEWLINE                {% ([k, m]) => b.throwStatement(k, m) %}
           | Jump %NEWLINE                                {% id %}
           | "assert" Expr AssertMessage                  {% ([k, t, m]) => b.assertStatement(k, t, m) %}
           | "agent" %name ":" Properties                 {% ([k, n, , p]) => b.agent(k, n, p) %}
           | "block" %name Params BlockModifiers ":" Block
                                                          {% ([k, n, p, m, , body]) => b.block(k, n, p, m, body) %}
           | If                                           {% id %}
           | "choice" %discretion ":" %NEWLINE %INDENT Options %DEDENT
                                                          {% ([k, c, , , , o]) => b.choice(k, c, o) %}
           | Value                                        {% ([e]) => b.expressionStatement(e) %}
           # A statement that did not parse, skipped by error recovery (parser.ts) so the rest still parses.
           | %SKIPPED %NEWLINE                            {% ([s]) => s.skipped %}

# What a binding, an output or an expression statement holds: an expression ending the line, or a
# block-valued expression ending with its block.
Value -> Expr %NEWLINE                                    {% id %}
       | BlockExpr                                        {% id %}

Jump -> "return"                                          {% ([k]) => b.jump("Return", k) %}
      | "break"                                           {% ([k]) => b.jump("Break", k) %}
      | "continue"                                        {% ([k]) => b.jump("Continue", k) %}

AssertMessage -> %NEWLINE                                 {% () => null %}
               | ":" %NEWLINE %INDENT %string %NEWLINE %DEDENT
                                                          {% ([, , , m]) => m %}

Declaration -> %declaration                               {% id %}

Alias -> null                                             {% () => null %}
       | "as" %name                                       {% ([, a]) => a %}

OptionalExpr -> null                                      {% () => null %}
              | Expr                                      {% id %}

Params -> null                                            {% () => null %}
        | "(" ")"                                         {% () => null %}
        | "(" NameList ")"                                {% ([, list]) => list %}

NameList -> %name                                         {% ([n]) => b.cons(null, n) %}
          | NameList "," %name                            {% ([list, , n]) => b.cons(list, n) %}

BlockModifiers -> null                                    {% () => null %}
                | "(" KeyedModifierList ")"               {% ([, list]) => list %}

If -> IfClauses                                           {% ([c]) => b.ifStatement(c, null) %}
    | IfClauses "else" ":" Block                          {% ([c, , , body]) => b.ifStatement(c, body) %}

IfClauses -> "if" Expr ":" Block                          {% ([k, t, , body]) => b.cons(null, b.ifClause(k, t, body)) %}
           | IfClauses "elif" Expr ":" Block              {% ([list, k, t, , body]) => b.cons(list, b.ifClause(k, t, body)) %}

Options -> Option                                         {% ([o]) => b.cons(null, o) %}
         | Options Option                                 {% ([list, o]) => b.cons(list, o) %}

Option -> "option" %string ":" Block                      {% ([k, label, , body]) => b.choiceOption(k, label, body) %}

# ---------------------------------------------------------------------------------------------
# Properties (agents, sessions, block-form context)
# ---------------------------------------------------------------------------------------------

Properties -> %NEWLINE %INDENT PropertyList %DEDENT       {% ([, , list]) => b.propertyBlock(list) %}

PropertyList -> Property                                  {% ([p]) => b.cons(null, p) %}
              | PropertyList Property                     {% ([list, p]) => b.cons(list, p) %}

Property -> %name ":" Expr %NEWLINE                       {% ([k, , v]) => b.property(k, v) %}
          | %name ":" %type %NEWLINE                      {% ([k, , t]) => b.typeProperty(k, t) %}
          | %name ":" Properties                          {% ([k, , v]) => b.property(k, v) %}

# ---------------------------------------------------------------------------------------------
# Block-valued expressions: they end with the DEDENT of their block.
# ---------------------------------------------------------------------------------------------

BlockExpr -> BlockExprBase                                {% id %}
           | Expr "->" BlockExprBase                      {% ([l, , r]) => b.arrow(l, r) %}

BlockExprBase -> SessionHead Properties                   {% ([h, p]) => b.withProperties(h, p.properties) %}
               | "session" Properties                     {% ([k, p]) => b.session(k, null, null, null, k, p.properties) %}
               | "resume" ":" %name Properties            {% ([k, , a, p]) => b.resume(k, a, p.properties) %}
               | "parallel" Modifiers ":" Block           {% ([k, m, , body]) => b.parallel(k, m, body) %}
               | "repeat" Expr LoopIndex ":" Block        {% ([k, n, i, , body]) => b.repeat(k, n, i, body) %}
               | ForHead Modifiers ":" Block              {% ([h, m, , body]) => b.forEach(h.first, h.parallel, h.item, h.index, h.collection, m, body) %}
               | "loop" LoopCondition Modifiers LoopIndex ":" Block
                                                          {% ([k, c, m, i, , body]) => b.loop(k, c, m, i, body) %}
               | "try" ":" Block OptionalCatch OptionalFinally
                                                          {% ([k, , body, c, f]) => b.tryExpression(k, body, c, f) %}
               | "do" ":" Block                           {% ([k, , body]) => b.doBlock(k, body) %}
               | Operands Stages                          {% ([source, stages]) => b.pipeline(b.operation(source), stages) %}
               | Operands %NEWLINE %INDENT Stages %DEDENT {% ([source, , , stages]) => b.pipeline(b.operation(source), stages) %}

ForHead -> "for" ForNames "in" Expr                       {% ([k, n, , c]) => ({ first: k, parallel: false, item: n.item, index: n.index, collection: c }) %}
         | "parallel" "for" ForNames "in" Expr            {% ([k, , n, , c]) => ({ first: k, parallel: true, item: n.item, index: n.index, collection: c }) %}

ForNames -> %name                                         {% ([item]) => ({ item, index: null }) %}
          | %name "," %name                               {% ([item, , index]) => ({ item, index }) %}

LoopCondition -> null                                     {% () => null %}
               | "until" Expr                             {% ([m, t]) => b.loopCondition(m, t) %}
               | "while" Expr                             {% ([m, t]) => b.loopCondition(m, t) %}

LoopIndex -> null                                         {% () => null %}
           | "as" %name                                   {% ([, n]) => n %}

OptionalCatch -> null                                     {% () => null %}
               | "catch" Alias ":" Block                  {% ([k, n, , body]) => b.catchClause(k, n, body) %}

OptionalFinally -> null                                   {% () => null %}
                 | "finally" ":" Block                    {% ([, , body]) => body %}

Stages -> Stage                                           {% ([s]) => b.cons(null, s) %}
        | Stages Stage                                    {% ([list, s]) => b.cons(list, s) %}

Stage -> "|" PipeOperator ":" Block                       {% ([bar, op, , body]) => b.pipeStage(bar, op, null, body) %}
       | "|" "reduce" "(" NameList ")" ":" Block          {% ([bar, op, , params, , , body]) => b.pipeStage(bar, op, params, body) %}

PipeOperator -> "map" {% id %} | "filter" {% id %} | "pmap" {% id %}

Modifiers -> null                                         {% () => null %}
           | "(" ModifierList ")"                         {% ([, list]) => list %}

ModifierList -> Modifier                                  {% ([m]) => b.cons(null, m) %}
              | ModifierList "," Modifier                 {% ([list, , m]) => b.cons(list, m) %}

Modifier -> Expr                                          {% ([v]) => b.modifier(null, v) %}
          | KeyedModifier                                 {% id %}

KeyedModifierList -> KeyedModifier                        {% ([m]) => b.cons(null, m) %}
                   | KeyedModifierList "," KeyedModifier  {% ([list, , m]) => b.cons(list, m) %}

KeyedModifier -> %name ":" Expr                           {% ([k, , v]) => b.modifier(k, v) %}

# ---------------------------------------------------------------------------------------------
# Inline expressions.
# ---------------------------------------------------------------------------------------------

# Every grammar level an expression passes through costs Earley states at each token, so the
# levels are few: binary operators are read as a flat list and ordered by precedence afterwards
# (b.operation), and postfix access shares its rule with the primaries.
Expr -> Expr "->" Operands                                {% ([l, , r]) => b.arrow(l, b.operation(r)) %}
      | Operands                                          {% ([list]) => b.operation(list) %}

Operands -> Operand                                       {% ([o]) => b.cons(null, o) %}
          | Operands BinaryOperator Operand               {% ([list, op, o]) => b.cons(b.cons(list, op), o) %}

BinaryOperator -> %binaryOperator                         {% id %}

Operand -> "not" Operand                                  {% ([o, e]) => b.notPrefix(o, e) %}
         | "-" Operand                                    {% ([o, e]) => b.unary(o, e) %}
         | Postfix                                        {% id %}

Postfix -> Postfix "." %name                              {% ([o, , p]) => b.member(o, p) %}
         | Postfix "[" Expr "]"                           {% ([o, , i, close]) => b.index(o, i, close) %}
         | %atom                                          {% ([t]) => b.atom(t) %}
         | "[" OptionalElements "]"                       {% ([o, list, c]) => b.array(o, list, c) %}
         | "{" OptionalEntries "}"                        {% ([o, list, c]) => b.object(o, list, c) %}
         | "(" Expr ")"                                   {% ([, e]) => e %}
         | "session" SessionTarget                        {% ([k, t]) => b.session(k, t.name, t.agent, t.prompt, t.last) %}
         | "resume" ":" %name                             {% ([k, , a]) => b.resume(k, a) %}
         | "do" %name DoArguments                         {% ([k, n, args]) => b.doCall(k, n, args.list, args.close) %}
         | %ref %adjacentParen OptionalNamedArguments ")" {% ([n, , args, c]) => b.programCall(n, args, c) %}

SessionHead -> "session" SessionTarget                    {% ([k, t]) => b.session(k, t.name, t.agent, t.prompt, t.last) %}

SessionTarget -> %string                                  {% ([p]) => ({ name: null, agent: null, prompt: p, last: p }) %}
               | ":" %name                                {% ([, a]) => ({ name: null, agent: a, prompt: null, last: a }) %}
               | %name ":" %name                          {% ([n, , a]) => ({ name: n, agent: a, prompt: null, last: a }) %}

DoArguments -> null                                       {% () => ({ list: null, close: null }) %}
             | "(" OptionalExprList ")"                   {% ([, list, close]) => ({ list, close }) %}

OptionalExprList -> null                                  {% () => null %}
                  | ExprList OptionalComma                {% id %}

OptionalEntries -> null                                   {% () => null %}
                 | Entries OptionalComma                  {% id %}

OptionalNamedArguments -> null                            {% () => null %}
                        | NamedArguments OptionalComma    {% id %}

ExprList -> Expr                                          {% ([e]) => b.cons(null, e) %}
          | ExprList "," Expr                             {% ([list, , e]) => b.cons(list, e) %}

OptionalElements -> null                                  {% () => null %}
                  | Elements OptionalComma                {% id %}

Elements -> Element                                       {% ([e]) => b.cons(null, e) %}
          | Elements "," Element                          {% ([list, , e]) => b.cons(list, e) %}

# `mcp: ["github/get_*", prompt: "github/create_*"]`: a `prompt:` element is the object
# `{ prompt: ... }` (only `prompt`: `session:` and `resume:` already start expressions).
Element -> Expr                                           {% id %}
         | "prompt" ":" Expr                              {% ([k, , v]) => b.keyedElement(k, v) %}

Entries -> Entry                                          {% ([e]) => b.cons(null, e) %}
         | Entries "," Entry                              {% ([list, , e]) => b.cons(list, e) %}

Entry -> %name                                            {% ([k]) => b.entry(b.identifier(k), null) %}
       | %name ":" Expr                                   {% ([k, , v]) => b.entry(b.identifier(k), v) %}
       | %string ":" Expr                                 {% ([k, , v]) => b.entry(b.string(k), v) %}
       | EntryPath "." %name                              {% ([path, , p]) => b.pathEntry(path, p) %}

# `{ access.token }`: a shorthand entry whose key is the path's last name.
EntryPath -> %name                                        {% ([n]) => b.identifier(n) %}
           | EntryPath "." %name                          {% ([o, , p]) => b.member(o, p) %}

NamedArguments -> NamedArgument                           {% ([a]) => b.cons(null, a) %}
                | NamedArguments "," NamedArgument        {% ([list, , a]) => b.cons(list, a) %}

NamedArgument -> %name ":" Expr                           {% ([n, , v]) => b.namedArgument(n, v) %}

OptionalComma -> null | ","
